"""The README as a user meets it (issue 37 §2): every command of its ``bash`` blocks runs as
printed, its Python block runs, its exit-status table is the command lines', and the severity it
gives each finding is the one in the documents' ``severity.json``.

The commands run in this process through the command lines' ``main`` (the same code as
``python -m ...``; ``python`` and ``.venv/bin/python`` are this interpreter), in one scratch
directory, on the suite's one quick run of every claim (tests/shared_runs.py: each claim runs once
per session), so the whole file takes about a minute.  Not run here, each with its reason in
:data:`NOT_RUN`: the installation commands (this suite runs in what they install) and the suite
itself (``bash .ci/run`` runs the README's second command as printed).  The commands that take
minutes at the paper's settings (:data:`SLOW`) are marked ``slow``: ``pytest -m slow
tests/test_readme.py`` runs them (CONTRIBUTING.md), with the flag the README itself gives for
writing somewhere other than the checkout.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shlex

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

#: commands the test does not run, with the reason (the README's words, as printed)
NOT_RUN = {
    "python3 -m venv .venv": "creates the environment this test runs in",
    ".venv/bin/pip install -e .": "installs the package this test imports",
    '.venv/bin/pip install -e ".[test]"': "installs the test tools this test runs with",
    ".venv/bin/python -m pytest": "is this suite; bash .ci/run runs it as printed",
}
#: commands that take minutes (the paper's settings, the --full grids): marked slow; the value is
#: what the test appends (the README says so beside the command)
SLOW = {
    "python -m verify report --out DIR --full --seed 3": "",
    "python -m verify theorem4 --full --seed 3 --json": "",
    "python -m verify figure1 --full --workers 2": "",
    "python -m verify.running.reproductions --claim all --workers 2": " --out reproductions",
}
#: the exit statuses a command may end with (a claim's status; a search that finds one)
CLAIM_STATUSES = {0, 1, 3, 4}


def bash_commands(text: str = README) -> list[str]:
    """Every command of the ``bash`` blocks of ``text``: continuation lines joined, comments
    dropped, a ``&&`` chain split into its commands."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        joined = re.sub(r"\\\n\s*", "", block)
        for line in joined.splitlines():
            line = re.sub(r"(^|\s)#.*$", "", line).strip()
            if line:
                out += [c.strip() for c in line.split("&&")]
    return out


def python_block(text: str = README) -> str:
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1, len(blocks)
    return blocks[0]


def test_the_blocks_are_read_whole():
    cmds = bash_commands()
    assert cmds[:2] == ["python3 -m venv .venv", ".venv/bin/pip install -e ."]
    assert ("python -m simulate sweep --scheme msc,pmcsa --optimizer sgd,adam --lr 0.01,0.1 --N 4 "
            "--dim 5 --iters 50 --replicates 2 --workers 2 --cache sweep-cache --out results.csv"
            in cmds)  # a continued line, joined
    assert not any("#" in c for c in cmds)
    assert set(NOT_RUN) | set(SLOW) <= set(cmds), (set(NOT_RUN) | set(SLOW)) - set(cmds)


def test_the_first_two_commands_are_as_they_were():
    """The README's first two commands are the project's promise (issue 37: keep them)."""
    first = README.split("```bash\n", 1)[1].split("```", 1)[0]
    assert first == (
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/python -m verify report\n"
        'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/python -m '
        "pytest\n")


def _main(module: str):
    import bounds.cli
    import simulate.cli
    import verify.command.cli

    if module == "verify.running.reproductions":
        from mcsa_cli import run
        from verify.running import reproductions

        return lambda argv: run("python -m verify.running.reproductions", "",
                                ["reproductions", *argv], {"reproductions": reproductions.main})
    return {"bounds": bounds.cli.main, "simulate": simulate.cli.main,
            "verify": verify.command.cli.main}[module]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("readme")


@pytest.fixture
def shared(monkeypatch, workdir):
    """This test in the scratch directory, with every quick run at seed 0 the suite's shared one
    (a claim, `report`, `all`)."""
    from shared_runs import cached_runs, share_quick_runs

    import verify.command.cli
    import verify.running.runner

    share_quick_runs(monkeypatch)
    original = verify.running.runner.run_all

    def run_all(mode="quick", seed=0, progress=None, workers=None, cache=True, figure=None):
        if mode == "quick" and seed == 0:
            # the shared runs carry no figure: the report draws each one itself
            return list(cached_runs("quick", 0).values())
        return original(mode, seed, progress, workers=workers, cache=cache, figure=figure)

    monkeypatch.setattr(verify.running.runner, "run_all", run_all)
    monkeypatch.setattr(verify.command.cli, "run_all", run_all)
    monkeypatch.chdir(workdir)
    monkeypatch.setenv("MCSA_CACHE", str(workdir / "claim-cache"))
    return workdir


def run_as_printed(command: str, capsys) -> tuple[int, str, str]:
    words = shlex.split(command)
    assert words[0] in ("python", ".venv/bin/python") and words[1] == "-m", command
    rc = _main(words[2])(words[3:])
    out, err = capsys.readouterr()
    return rc, out, err


def _expected(command: str) -> set[int]:
    words = shlex.split(command)
    if words[2] == "verify" and words[3] not in ("list", "report", "audit", "coverage",
                                                 "certificate", "draw"):
        return CLAIM_STATUSES  # a claim, or `search` (1: a counterexample found)
    return {0}


RUN = list(dict.fromkeys(c for c in bash_commands() if c not in NOT_RUN and c not in SLOW))


@pytest.mark.parametrize("command", RUN)
def test_every_command_runs_as_printed(command, shared, capsys):
    rc, out, err = run_as_printed(command, capsys)
    assert rc in _expected(command), (command, rc, err)
    assert out.strip() and "Traceback" not in err and "internal error" not in err, (command, err)
    for flag in ("--out", "--plot"):  # what it says it writes is written
        words = shlex.split(command)
        if flag in words:
            path = shared / words[words.index(flag) + 1]
            assert path.exists() and (path.is_dir() or path.stat().st_size > 0), path
    if "--json" in command:
        json.loads(out)


@pytest.mark.slow
@pytest.mark.parametrize("command", list(SLOW))
def test_the_minutes_long_commands_run_as_printed(command, shared, capsys):
    extra = SLOW[command]
    if extra:  # the README names the flag beside the command (in its comment)
        lines = README.splitlines()
        i = next(i for i, x in enumerate(lines) if x.startswith(command))
        assert extra.split()[0] + " DIR" in " ".join(lines[i:i + 3]), lines[i:i + 3]
    rc, out, err = run_as_printed(command + extra, capsys)
    assert rc in _expected(command) and "Traceback" not in err, (command, rc, err)


def test_the_python_block_runs(shared, capsys):
    """The 'From Python' block, line by line in one namespace; a value in a comment (``# 0.65``)
    is the value the line gives."""
    ns: dict = {}
    for line in python_block().splitlines():
        code = line.split("#")[0].strip()
        if not code:
            continue
        exec(compile(code, "README.md", "exec"), ns)
        shown = re.search(r"#\s*(-?\d+(?:\.\d+)?)\s*$", line)
        if shown:
            target = code.split("=")[0].strip() if "=" in code.split("(")[0] else None
            value = ns[target] if target else eval(compile(code, "README.md", "eval"), ns)
            assert f"{value:.{len(shown.group(1).split('.')[-1])}f}" == shown.group(1), line
    assert (shared / "out" / "report.html").exists()
    capsys.readouterr()


# ----------------------------------------------------------------------------- exit statuses
def readme_exit_table() -> dict[int, str]:
    section = README.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\| (\d+) \| (.*?) \|$", section,
                                                              re.M)}


#: what each command can exit with, and the commands whose --help says so
HELP_STATUSES = {
    ("verify", "theorem3"): {0, 1, 2, 3, 4, 70, 74, 130},
    ("verify", "all"): {0, 1, 2, 3, 4, 70, 74, 130},
    ("verify", "search"): {0, 1, 2, 70, 74, 130},
    ("verify", "list"): {0, 2, 70, 74, 130},
    ("verify", "audit"): {0, 2, 70, 74, 130},
    ("verify", "report"): {0, 2, 70, 74, 130},
    ("verify", "coverage"): {0, 2, 70, 74, 130},
    ("verify", "certificate"): {0, 2, 70, 74, 130},
    ("verify", "draw", "mixing"): {0, 2, 70, 74, 130},
    ("verify", "draw", "step"): {0, 2, 70, 74, 130},
    ("verify.running.reproductions",): {0, 2, 70, 74, 130},
    ("bounds", "list"): {0, 2, 70, 74, 130},
    ("bounds", "show"): {0, 2, 70, 74, 130},
    ("bounds", "theorem3"): {0, 2, 70, 74, 130},
    ("bounds", "compare"): {0, 2, 70, 74, 130},
    ("bounds", "cache"): {0, 2, 70, 74, 130},
}


def _help_statuses(text: str) -> set[int]:
    """The statuses a --help's 'Exit status: ...' sentence names."""
    flat = " ".join(text.split())
    m = re.search(r"[Ee]xit status(?:es)?:? (.*?\binterrupted)", flat)
    assert m, flat[-300:]
    return {int(x) for x in re.findall(r"(?:^|, |; )(\d+) [a-z]", m.group(1))}


def test_the_readme_lists_every_exit_status():
    table = readme_exit_table()
    assert set(table) == {0, 1, 2, 3, 4, 5, 70, 74, 130}, sorted(table)
    assert "written" in table[74]


@pytest.mark.parametrize("cmd", list(HELP_STATUSES), ids=" ".join)
def test_each_help_gives_the_statuses_its_command_can_return(cmd, capsys):
    rc = _main(cmd[0])([*cmd[1:], "--help"])
    out = capsys.readouterr().out
    assert rc == 0
    assert _help_statuses(out) == HELP_STATUSES[cmd], out[-400:]


def test_list_exits_0_whatever_the_claims_statuses(capsys):
    """`verify list --help` used to list the claim statuses as exit codes; list always exits 0."""
    from verify.command.cli import main

    assert main(["list"]) == 0
    assert "violated" in capsys.readouterr().out


# ----------------------------------------------------------------------------- severities
SEVERITY_TAG = re.compile(r"((?:`[\w.]+`,\s*)*`[\w.]+`):\s*`(false|gap|slip|loose|note)`")


def readme_severities(text: str = README) -> dict[str, str]:
    """``{claim: severity}`` as the README's findings tag them: ``(`lemma5`, `lemma6`:
    `false`)``."""
    section = text.split("## What the checks found", 1)[1].split("\n## ", 1)[0]
    out: dict[str, str] = {}
    for ids, sev in SEVERITY_TAG.findall(section):
        for cid in re.findall(r"`([\w.]+)`", ids):
            assert out.setdefault(cid, sev) == sev, (cid, out[cid], sev)
    return out


def data_severities() -> dict[str, str]:
    from verify.judging.severity import loaded

    return {cid: e["severity"] for pkg in loaded().values()
            for cid, e in pkg.get("claims", {}).items()}


def test_the_readme_gives_each_finding_the_severity_of_the_data():
    """Issue 37: the README filed Theorems 3-4 under `false` (the data: `gap`), El hanchi's
    'equivalent to k in (0, 1)' under `false` (`loose`) and Barker's ratio under `slip`
    (`note`).  Every claim with a severity is in the README, with that severity."""
    assert readme_severities() == data_severities()


def test_the_severity_check_sees_a_wrong_severity():
    wrong = README.replace("(`theorem3`, `theorem4`: `gap`)", "(`theorem3`, `theorem4`: `false`)")
    assert wrong != README and readme_severities(wrong) != data_severities()
    dropped = README.replace("(`sgfs_stationary_covariance`:\n  `loose`)", "")
    assert dropped != README and readme_severities(dropped) != data_severities()


def test_the_readme_names_every_severity():
    from verify.judging.severity import SEVERITIES

    section = README.split("## What the checks found", 1)[1]
    for sev in SEVERITIES:
        assert f"`{sev}` (" in section, sev


def test_no_readme_command_names_a_placeholder():
    """Every command of a block is runnable as printed: no STEP_ID, CLAIM, ID or FILE left for the
    reader to fill in (a placeholder goes in the prose, or in a comment)."""
    for c in bash_commands():
        if c in SLOW:
            continue
        assert not re.search(r"\b(STEP_ID|CLAIM|ID|FILE|PATH|HOST|PORT)\b", c), c
    assert os.sep == "/"  # the commands are POSIX shell
