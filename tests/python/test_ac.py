"""parac.arc_consistency against the CLI's --domains output and a plain AC-3 in Python."""
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import parac
from conftest import requires_cuda
from test_fca import cli_path

DATA = Path(__file__).resolve().parents[1] / "data" / "csp"
FILES = sorted(DATA.glob("*.xml"))
CPU_ALGORITHMS = ["ac3", "ac3rm", "ac3bit", "ac2001", "ac4", "gpu-bitset"]


def generated_network(seed, variables=12, domain=6, constraints=30, tightness=0.45):
    """A random binary network (distinct scopes, conflicts tables) as XCSP3 text, and its tables."""
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(variables) for j in range(i + 1, variables)]
    chosen = [pairs[p] for p in rng.choice(len(pairs), size=constraints, replace=False)]
    tables = {}
    lines = ['<instance format="XCSP3" type="CSP">', "  <variables>"]
    lines += [f'    <var id="v{i}"> 0..{domain - 1} </var>' for i in range(variables)]
    lines += ["  </variables>", "  <constraints>"]
    for x, y in chosen:
        forbidden = {(int(a), int(b)) for a, b in zip(*np.nonzero(rng.random((domain, domain)) < tightness))}
        tables[(x, y)] = forbidden
        if not forbidden:
            forbidden = {(0, 0)}
            tables[(x, y)] = forbidden
        conflicts = "".join(f"({a},{b})" for a, b in sorted(forbidden))
        lines += ["    <extension>", f"      <list> v{x} v{y} </list>", f"      <conflicts> {conflicts} </conflicts>",
                  "    </extension>"]
    lines += ["  </constraints>", "</instance>"]
    return "\n".join(lines) + "\n", variables, domain, tables


def ac3(variables, domain, tables):
    """Arc consistency by AC-3 over conflict tables: the remaining values per variable (all empty on a wipe-out)."""
    domains = [set(range(domain)) for _ in range(variables)]
    arcs = []
    for (x, y), forbidden in tables.items():
        arcs.append((x, y, lambda a, b, f=forbidden: (a, b) not in f))
        arcs.append((y, x, lambda a, b, f=forbidden: (b, a) not in f))
    changed = True
    while changed:
        changed = False
        for x, y, allowed in arcs:
            keep = {a for a in domains[x] if any(allowed(a, b) for b in domains[y])}
            if keep != domains[x]:
                domains[x] = keep
                changed = True
                if not keep:
                    return [[] for _ in range(variables)]
    return [sorted(d) for d in domains]


@pytest.mark.parametrize("seed", range(6))
def test_generated_networks_match_ac3(seed):
    xml, variables, domain, tables = generated_network(seed, tightness=0.3 + 0.08 * seed)
    expected = ac3(variables, domain, tables)
    for algorithm in CPU_ALGORITHMS:
        domains, stats = parac.arc_consistency(xml, algorithm=algorithm, device="cpu")
        assert list(domains) == [f"v{i}" for i in range(variables)]
        assert [d.tolist() for d in domains.values()] == expected
        assert stats["algorithm"] == algorithm and stats["device"] == "cpu"
        assert stats["wipeout"] == (not any(expected))
        assert stats["values_before"] == variables * domain
        assert stats["values_after"] == sum(len(d) for d in expected)
        assert stats["removed"] == stats["values_before"] - stats["values_after"]
        assert all(d.dtype == np.int64 for d in domains.values())


def run_cli(cli, path, tmp_path, *extra):
    out = tmp_path / "domains.json"
    summary = subprocess.run([cli, "ac", str(path), "--json", "--domains", str(out), *extra], check=True,
                             capture_output=True, text=True).stdout.splitlines()[-1]
    return json.loads(out.read_text()), json.loads(summary)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
@pytest.mark.parametrize("sac", [False, True])
def test_files_match_the_cli(path, sac, tmp_path):
    cli = cli_path()
    if cli is None:
        pytest.skip("no parac CLI built (set PARAC_CLI)")
    expected, summary = run_cli(cli, path, tmp_path, "--device", "cpu", *(["--sac"] if sac else []))
    domains, stats = parac.arc_consistency(path, sac=sac, device="cpu")
    assert list(domains) == list(expected)
    assert {name: values.tolist() for name, values in domains.items()} == expected
    for key in ["algorithm", "sac", "variables", "constraints", "values_before", "values_after", "removed", "wipeout",
                "iterations", "revisions", "ne_nodes", "ne_edges"]:
        assert stats[key] == summary[key], key
    assert stats["table_count"] == summary["tables"]["count"]
    assert stats["tuple_entries"] == summary["tables"]["tuple_entries"]
    assert len(stats["dropped"]) == summary["dropped"]


def test_generated_file_from_the_cli_and_xml_string(tmp_path):
    cli = cli_path()
    if cli is None:
        pytest.skip("no parac CLI built (set PARAC_CLI)")
    path = tmp_path / "gen.xml"
    subprocess.run([cli, "gen", "csp", "--vars", "40", "--dom", "8", "--constraints", "150", "--tightness", "0.35",
                    "--seed", "3", "-o", str(path)], check=True, capture_output=True)
    expected, _ = run_cli(cli, path, tmp_path)
    for source in (path, str(path), path.read_text(), path.read_bytes()):
        domains, _ = parac.arc_consistency(source, device="cpu", threads=1)
        assert {name: values.tolist() for name, values in domains.items()} == expected


def test_bad_input_raises(tmp_path):
    with pytest.raises(parac.ParacIOError):
        parac.arc_consistency(tmp_path / "missing.xml")
    with pytest.raises(parac.ParseError):
        parac.arc_consistency("<instance format='XCSP3' type='CSP'><variables>")
    with pytest.raises(ValueError):
        parac.arc_consistency(generated_network(0)[0], algorithm="ac7")
    with pytest.raises(ValueError):
        parac.arc_consistency(generated_network(0)[0], device="fpga")
    # a serial algorithm cannot run on the GPU (without one: no device at all)
    with pytest.raises(ValueError if parac.cuda_available() else parac.NoDeviceError):
        parac.arc_consistency(generated_network(0)[0], algorithm="ac3", device="cuda")
    with pytest.raises(parac.InvalidArgumentError):  # a GPU algorithm with device="cpu"
        parac.arc_consistency(generated_network(0)[0], algorithm="ac4-gpu", device="cpu")
    with pytest.raises(TypeError):
        parac.arc_consistency(42)
    if not parac.cuda_available():
        with pytest.raises(parac.NoDeviceError):
            parac.arc_consistency(generated_network(0)[0], algorithm="ac4-gpu-plus")


@requires_cuda
@pytest.mark.parametrize("algorithm", ["ac4-gpu", "ac4-gpu-plus", "gpu-bitset"])
def test_cuda_gives_the_cpu_domains(algorithm):
    xml = generated_network(4)[0]
    cpu, _ = parac.arc_consistency(xml, device="cpu")
    gpu, stats = parac.arc_consistency(xml, algorithm=algorithm, device="cuda")
    assert stats["device"] == "cuda"
    assert {k: v.tolist() for k, v in gpu.items()} == {k: v.tolist() for k, v in cpu.items()}
