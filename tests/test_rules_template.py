"""The rules and kernel templates are modules: importable, linted like any other file, their
constants imported from a generated module, the cooperative steps a module drive_chain is handed,
and a generated copy keeps every line of its template, so a traceback names the template's line."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import traceback
from pathlib import Path

import pytest

from cpu_reference.cache import rewrite_imports
from cpu_reference.sudoku import rules

ROOT = Path(__file__).resolve().parent.parent
SUDOKU = ROOT / "cpu_reference" / "sudoku"
KERNELS = ROOT / "gpu_anneal" / "kernels"
TEMPLATES = {
    "cpu_reference.sudoku.rules_template": SUDOKU / "rules_template.py",
    "cpu_reference.sudoku.chain_template": SUDOKU / "chain_template.py",
    "gpu_anneal.kernels.coop_rules": KERNELS / "coop_rules.py",
    "gpu_anneal.kernels.slice_template": KERNELS / "slice_template.py",
    "gpu_anneal.kernels.coop_template": KERNELS / "coop_template.py",
}
# a comment that switches a lint rule off for a whole file (ruff's, or flake8's)
FILE_WIDE_NOQA = re.compile(r"^#\s*(ruff|flake8)\s*:\s*noqa", re.IGNORECASE | re.MULTILINE)


def test_rules_constants_is_the_default_specialisations_text():
    """rules_constants.py, what the templates import when imported as themselves, is the text
    rules.model writes for rules.DEFAULT (regenerate: python -c "import sys; from
    cpu_reference.sudoku import rules; sys.stdout.write(rules.constants_text(rules.DEFAULT))"
    > cpu_reference/sudoku/rules_constants.py)."""
    assert (SUDOKU / "rules_constants.py").read_text() == rules.constants_text(rules.DEFAULT)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_each_template_imports_as_itself(name):
    """Every template is a module: importing it runs (the CPU runner's 9x9 rules)."""
    module = importlib.import_module(name)
    assert Path(module.__file__).resolve() == TEMPLATES[name].resolve()


def test_no_source_file_switches_a_lint_rule_off_for_the_whole_file():
    """No `# ruff: noqa` (nor flake8's) in the project's sources: undefined names are lint
    errors everywhere, the templates included. The pattern finds one in a line made up here."""
    assert FILE_WIDE_NOQA.search("x = 1\n# ruff: noqa: F401, F821  (constants)\n")
    found = [
        str(path.relative_to(ROOT))
        for package in ("cli", "gpu_anneal", "cpu_reference", "benchmarks", "tests")
        for path in sorted((ROOT / package).rglob("*.py"))
        if FILE_WIDE_NOQA.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def _def_lines(path: Path) -> dict[str, set[int]]:
    """Function name -> the first lines of its definitions (a decorated one's first decorator;
    a name defined in both branches of an `if` has two)."""
    out: dict[str, set[int]] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out.setdefault(node.name, set()).add(first)
    return out


def _own_functions(module):
    """The Python functions defined in a module (a jitted one's py_func)."""
    for value in vars(module).values():
        fn = getattr(value, "py_func", value)
        if inspect.isfunction(fn) and fn.__module__ == module.__name__:
            yield fn


def _assert_copy_keeps_lines(module, template: Path) -> int:
    """Every function of the generated `module` starts on its template's line for it, and the
    copy's lines equal the template's but for the rewritten imports' heads."""
    copy = Path(module.__file__)
    assert copy != template and copy.name.startswith("gpu_anneal_")
    ours, theirs = copy.read_text().splitlines(), template.read_text().splitlines()
    assert len(ours) == len(theirs)
    differ = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    assert differ and all(theirs[i].startswith(("from ", "import ")) for i in differ)
    lines = _def_lines(template)
    checked = 0
    for fn in _own_functions(module):
        assert fn.__code__.co_filename == str(copy)
        assert fn.__code__.co_firstlineno in lines[fn.__name__], fn.__name__
        checked += 1
    return checked


def test_generated_rules_keep_the_templates_lines():
    """The CPU runner's rules of order 2 and the one-thread kernel's: the constants module is
    generated (not rules_constants.py), the rules and the chain driver are copies of their
    templates line for line, and drive_chain's steps are the rules' own."""
    for m in (rules.cpu_model(2), rules.model(2, rules.MOVE_FOCUSED, 128, table=False,
                                              packed=True, thr_cap=7)):  # fmt: skip
        assert m.constants.__name__.endswith("_constants") and m.constants.LANES == m.rules.LANES
        assert m.constants.N == 4 and "rules_constants" not in m.constants.__name__
        assert _assert_copy_keeps_lines(m.rules, SUDOKU / "rules_template.py") > 40
        assert _assert_copy_keeps_lines(m.chain, SUDOKU / "chain_template.py") == 2
        assert m.chain.steps is m.rules is m.steps
        assert m.plateau is m.rules.plateau and m.drive_chain is m.chain.drive_chain


def test_a_traceback_names_the_templates_line():
    """An error raised inside a generated function is reported at the line of the template
    that holds the failing statement, in the function of that name."""
    m = rules.cpu_model(2)
    with pytest.raises(ValueError) as caught:
        m.drive_chain.py_func(*([None] * 22), ())  # settings: nothing to unpack
    frame = traceback.extract_tb(caught.value.__traceback__)[-1]
    template = SUDOKU / "chain_template.py"
    assert (frame.filename, frame.name) == (m.chain.__file__, "drive_chain")
    line = template.read_text().splitlines()[frame.lineno - 1]
    assert line.strip() == frame.line
    (node,) = [n for n in ast.parse(template.read_text()).body if getattr(n, "name", "") == (
        "drive_chain")]  # fmt: skip
    (statement,) = [s for s in node.body if s.lineno == frame.lineno]  # the tuple's unpacking
    assert isinstance(statement, ast.Assign) and ast.unparse(statement.value) == "settings"


def test_cooperative_steps_are_handed_to_the_chain_driver():
    """The cooperative rules: coop_rules.py's copy is the chain driver's `steps` (its plateau,
    start_trial, fill_thresholds and focus_init), the rules' own functions stay the template's,
    and every copy keeps its template's lines."""
    pytest.importorskip("numba.cuda")
    from gpu_anneal.kernels import sudoku_coop

    m = sudoku_coop.coop_model(4, rules.MOVE_FOCUSED)
    assert m.chain.steps is m.steps is not m.rules
    for name in rules.STEPS:
        assert getattr(m, name) is getattr(m.steps, name) is not getattr(m.rules, name)
    assert m.get_value is m.rules.get_value and m.steps.get_value is m.rules.get_value
    assert _assert_copy_keeps_lines(m.steps, KERNELS / "coop_rules.py") > 20
    assert _assert_copy_keeps_lines(m.chain, SUDOKU / "chain_template.py") == 2


def test_kernel_templates_are_copied_line_for_line():
    """The one-thread and cooperative slice kernels: copies of their templates whose imports
    name the specialisation's generated modules, the kernel on its template's line."""
    pytest.importorskip("numba.cuda")
    from gpu_anneal.kernels import sudoku as ks
    from gpu_anneal.kernels import sudoku_coop

    kernel = ks.kernel_function(3, rules.MOVE_SIRDEY)
    module = importlib.import_module(kernel.__module__)
    assert _assert_copy_keeps_lines(module, KERNELS / "slice_template.py") >= 2
    assert module.drive is ks._model(3, rules.MOVE_SIRDEY).drive_chain
    assert module.SHARED and module.SHARED_WORDS * 4 == ks.shared_bytes_per_block(3)
    kernel = sudoku_coop.kernel_function(4, rules.MOVE_SIRDEY)
    module = importlib.import_module(kernel.__module__)
    assert _assert_copy_keeps_lines(module, KERNELS / "coop_template.py") >= 1
    m = sudoku_coop.coop_model(4, rules.MOVE_SIRDEY)
    assert module.drive_chain is m.drive_chain and module.coop_load is m.steps.coop_load


def _template(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "template.py"
    path.write_text(text)
    return path


def test_rewrite_imports_keeps_every_line_and_refuses_what_it_cannot_rewrite(tmp_path):
    """Heads rewritten in place (a multi-line import keeps its lines), a head that begins no
    line left out; two lines with one head, a line break in a replacement, or an import of a
    head's module written another way: ValueError."""
    text = (
        '"""doc: from a.b import x"""\n'
        "from a.b import (\n    x,\n    y,\n)\n"
        "from a import c as steps\n"
        "z = x + y\n"
    )
    heads = {
        "from a.b import": "from gen_1 import",
        "from a import c as steps": "import g as steps",
        "from a.d import": "from gen_2 import",
    }
    out = rewrite_imports(_template(tmp_path, text), heads)
    assert out.splitlines()[1:] == [
        "from gen_1 import (", "    x,", "    y,", ")", "import g as steps", "z = x + y",
    ]  # fmt: skip
    assert out.splitlines()[0] == '"""doc: from a.b import x"""'
    with pytest.raises(ValueError, match="lines"):
        rewrite_imports(_template(tmp_path, text + "from a.b import w\n"), heads)
    with pytest.raises(ValueError, match="one line"):
        rewrite_imports(_template(tmp_path, text), {"from a.b import": "from g\nimport"})
    with pytest.raises(ValueError, match="still imports a.b"):
        rewrite_imports(_template(tmp_path, text + "import a.b as other\n"), heads)
    with pytest.raises(ValueError, match="still imports a.c"):
        rewrite_imports(_template(tmp_path, text.replace("c as steps", "c as s")), heads)
