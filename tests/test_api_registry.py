"""Registry.scoped and Registry.unregister remove everything a registration added.

A claim registered in a ``with Registry.scoped()`` block (its verification, search space,
formula, proof steps and memoised bound values) is gone after the block, an entry the block
replaced is back, and a module the block included gives its records again when included
again.  ``unregister(id)`` removes one claim's entries and leaves the others.
"""

import sys
import textwrap

import pytest


def square(x):
    """x^2, exactly (module level: a verification may pickle it)."""
    return x * x, 0.0


def _quick(claim_id):
    from verify.quick import QuickClaim

    return QuickClaim(claim_id, bound="x**2", quantity=square, relation="=",
                      domain={"x": (0.0, 2.0)})


def _tables():
    import bounds
    from verify import registry
    from verify.audit.engine import STEPS
    from verify.searching import spaces

    return {"claims": registry.REGISTRY, "spaces": spaces.SPECS, "steps": STEPS,
            "formulas": bounds._ADDED}


def _ids(tables):
    return {name: set(d) for name, d in tables.items()}


def test_a_scoped_claim_is_gone_after_the_block():
    import bounds
    import verify
    from verify.registry import Registry, bound_value

    before = _ids(_tables())
    with Registry.scoped() as reg:
        _quick("api_scoped_square").register(reg)
        assert "api_scoped_square" in verify.claims()
        assert "api_scoped_square" in _tables()["spaces"]
        assert bound_value("api_scoped_square", "square", "stated", x=1.5) == 2.25
        assert bounds.get("api_scoped_square").id == "api_scoped_square"
    assert _ids(_tables()) == before
    assert "api_scoped_square" not in verify.claims()
    with pytest.raises(bounds.UnknownClaim):
        bounds.get("api_scoped_square")
    from verify.registry import _bound_float, bound_enclosure

    # the memoised bound values went with it (the per-process memos are cleared)
    assert _bound_float.cache_info().currsize == 0 and bound_enclosure.cache_info().currsize == 0


def test_a_replaced_entry_is_put_back():
    import bounds
    from verify.registry import Registry

    original = bounds.get("theorem3")
    with Registry.scoped() as reg:
        reg.add_builder("theorem3", lambda: _quick("theorem3").formula())
        assert bounds.get("theorem3") is not original
        assert bounds.get("theorem3").quantities[0].name == "square"
    assert "theorem3" not in bounds._ADDED
    assert bounds.get("theorem3").title == original.title
    assert bounds.get("theorem3").quantities[0].name == original.quantities[0].name


def test_an_error_in_the_block_still_removes_its_claims():
    import verify
    from verify.registry import Registry

    with pytest.raises(RuntimeError):
        with Registry.scoped() as reg:
            _quick("api_scoped_error").register(reg)
            raise RuntimeError("in the block")
    assert "api_scoped_error" not in verify.claims()


def test_included_steps_are_removed_and_declared_again(tmp_path, monkeypatch):
    from verify.audit.engine import STEPS
    from verify.registry import Registry

    pkg = tmp_path / "api_scoped_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "proofs.py").write_text(textwrap.dedent('''
        from verify.audit.engine import step, unchecked
        from verify.searching.spaces import spec

        step("api_scoped.1", claim="api_scoped_square", seed="001", location="Eq. (1)",
             relation="=", lhs="x^2", rhs="x x", justification="definition",
             check=unchecked("a test step"))

        @spec("api_scoped_square", "nothing")
        def space():
            return None, None
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    made = []
    for _ in range(2):  # the second time the module's records are added again (not re-imported)
        with Registry.scoped() as reg:
            _quick("api_scoped_square").register(reg)
            reg.include("api_scoped_pkg.proofs")
            assert STEPS["api_scoped.1"].claim == "api_scoped_square"
            assert "api_scoped_square" in reg.spaces
            made.append(STEPS["api_scoped.1"])
        assert "api_scoped.1" not in STEPS
        assert "api_scoped_pkg.proofs" in sys.modules  # no module is unloaded
    assert made[0] is made[1]


def test_a_module_imported_before_the_block_stays_imported():
    import verify.presenting.formatting  # noqa: F401
    from verify.registry import Registry

    with Registry.scoped() as reg:
        reg.include("verify.presenting.formatting")
    assert "verify.presenting.formatting" in sys.modules


def test_unregister_removes_one_claim_and_leaves_the_others():
    import bounds
    import verify
    from verify.registry import Registry

    with Registry.scoped() as reg:
        _quick("api_unregister_a").register(reg)
        _quick("api_unregister_b").register(reg)
        reg.unregister("api_unregister_a")
        tables = _tables()
        assert all("api_unregister_a" not in tables[t] for t in ("claims", "spaces", "formulas"))
        with pytest.raises(bounds.UnknownClaim):
            bounds.get("api_unregister_a")
        assert "api_unregister_b" in verify.claims()
        assert bounds.get("api_unregister_b").id == "api_unregister_b"
        reg.unregister("no_such_claim")  # ignored
    assert "api_unregister_b" not in verify.claims()


def test_a_registry_built_from_chosen_documents_is_its_own_value():
    """build(chosen) loads only the chosen plugins, into a new registry; the process's registry
    (default()) is neither changed nor used, and reading its views loads nothing more."""
    from verify import registry

    teaching = [p for p in registry.plugins() if p.module == "verify.documents.teaching"]
    before = {name: list(getattr(registry.default(), name)) for name in ("claims", "steps")}
    reg = registry.build(tuple(teaching))
    assert reg is not registry.default() and list(reg.loaded) == ["verify.documents.teaching"]
    assert reg.claims and all(c.startswith("teach_") for c in reg.claims)
    assert reg.steps == {} and reg.spaces == {}
    assert {name: list(getattr(registry.default(), name)) for name in before} == before
    assert set(reg.claims) < set(registry.REGISTRY)  # the process's holds every document


def test_a_documents_records_are_its_own_and_added_by_include():
    """The steps a proofs module declares are records of that module (verify.registry.RECORDS):
    a registry built afresh gets the same Step objects from it, in the same order."""
    from verify import registry
    from verify.audit.engine import STEPS

    kim = [p for p in registry.plugins() if p.module == "verify.documents.kim2022"]
    reg = registry.build(tuple(kim))
    import verify.documents.kim2022.proofs as proofs

    own = [v for kind, v in getattr(proofs, registry.RECORDS) if kind == "step"]
    assert own and all(reg.steps[s.id] is s and STEPS[s.id] is s for s in own)
    assert [s for s in reg.steps if s in {x.id for x in own}] == [s.id for s in own]


def test_the_module_tables_are_read_only_views():
    from verify.audit import engine
    from verify.registry import REGISTRY
    from verify.searching.spaces import SPECS

    for view in (REGISTRY, SPECS, engine.STEPS, engine.UNUSED_TEXT):
        with pytest.raises(TypeError):
            view["x"] = None  # type: ignore[index]
    import bounds

    with pytest.raises(TypeError):
        bounds.ASSUMPTIONS["X"] = "y"  # type: ignore[index]
    assert "FINITE" in bounds.ASSUMPTIONS  # the teaching formulas' own, read from their module
    # a script's (notebook 06): named once, a built-in text never replaced
    assert bounds.ASSUMPTIONS.setdefault("A1", "other") == bounds.core.BUILTIN_ASSUMPTIONS["A1"]
