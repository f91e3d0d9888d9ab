"""The systemd unit: valid for systemd itself, hardened, and in step with `pbem-admin`."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).resolve().parent.parent / "systemd"
UNIT = SYSTEMD / "pbem.service"
INSTALLED = "/opt/tongiaki/.venv/bin/pbem"


def _analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        pytest.fail("systemd-analyze is missing: `python3 dev.py test` installs Debian's systemd")
    return found


def _unit_here(tmp_path: Path) -> Path:
    """The unit with ExecStart= pointing at this checkout's pbem (verify checks it exists)."""
    pbem = Path(sys.executable).parent / "pbem"
    assert pbem.exists()
    unit = tmp_path / "pbem.service"
    unit.write_text(UNIT.read_text().replace(INSTALLED, str(pbem)))
    return unit


def _settings(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if (match := re.match(r"([A-Za-z]+)=(.*)", line)) is not None:
            found.setdefault(match.group(1), []).append(match.group(2))
    return found


def test_systemd_analyze_verify_finds_nothing_wrong(tmp_path: Path) -> None:
    result = subprocess.run(
        [_analyze(), "verify", str(_unit_here(tmp_path))], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == ""


def test_systemd_rates_the_unit_well_hardened(tmp_path: Path) -> None:
    """Exposure at most 2.0 of 10 (`--threshold` counts tenths); it is about 1.1 now."""
    unit = _unit_here(tmp_path)
    result = subprocess.run(
        [_analyze(), "security", "--offline=true", "--threshold=20", "--no-pager", str(unit)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"Overall exposure level for pbem.service: [01]\.\d OK", result.stdout)


def test_the_unit_runs_serve_as_a_dynamic_user_with_the_hardening_asked_for() -> None:
    unit = _settings(UNIT.read_text())
    assert unit["ExecStart"] == [f"{INSTALLED} serve --config /etc/pbem/pbem.toml"]
    for key, value in {
        "DynamicUser": "yes",
        "User": "pbem",  # pbem-admin's units share the dynamic user by this name
        "StateDirectory": "pbem",
        "WorkingDirectory": "/var/lib/pbem",
        "Restart": "on-failure",
        "ProtectSystem": "strict",
        "NoNewPrivileges": "yes",
        "PrivateTmp": "yes",
        "KillSignal": "SIGTERM",
        "RestartSec": "30s",  # a full disk (exit status 5) is tried again, but not in a hurry
        "RestartPreventExitStatus": "2 4",  # bad settings; a damaged or read-only database
    }.items():
        assert unit[key] == [value], key
    assert "Environment" not in unit  # no secret in the unit
    assert sorted(unit["LoadCredential"]) == [
        "imap_password:/etc/pbem/imap_password",
        "smtp_password:/etc/pbem/smtp_password",
    ]


def test_pbem_admin_runs_pbem_as_the_units_user_with_its_paths() -> None:
    unit = _settings(UNIT.read_text())
    admin = (SYSTEMD / "pbem-admin").read_text()
    assert admin.rstrip().endswith(f'{INSTALLED} "$@"')
    for key in (
        "StateDirectory",
        "StateDirectoryMode",
        "WorkingDirectory",
        "UMask",
        "DynamicUser",
        "User",
    ):
        assert f"--property={key}={unit[key][0]}" in admin
    for credential in unit["LoadCredential"]:
        assert f"--property=LoadCredential={credential}" in admin
    assert "--setenv=PBEM_CONFIG=/etc/pbem/pbem.toml" in admin
    shell = subprocess.run(["sh", "-n", str(SYSTEMD / "pbem-admin")], capture_output=True)
    assert shell.returncode == 0, shell.stderr
