"""`svmteach lab` copies the course without overwriting a student's notebooks."""

from svmteach import cli


def test_lab_copies_the_course_and_keeps_existing_work(tmp_path, capsys):
    target = tmp_path / "course"
    assert cli.main(["lab", "--dir", str(target), "--no-browser-launch"]) == 0
    names = sorted(p.name for p in target.glob("*.ipynb"))
    assert names and names == sorted(p.name for p in cli.course_source().glob("*.ipynb"))
    mine = target / names[0]
    mine.write_text("my edits")
    cli.main(["lab", "--dir", str(target), "--no-browser-launch"])
    assert mine.read_text() == "my edits"
    assert "existing ones kept" in capsys.readouterr().out


def test_verify_runs_the_derivations(capsys):
    assert cli.main(["verify"]) == 0
    assert "errata" in capsys.readouterr().out
