"""The wrapper process that runs INSIDE the private network namespace.

`runner.py` launches `unshare -n -m python -m harness.inside SPEC` so that the
fake API, the fake web and the CLI share one namespace whose only interface is
loopback: nothing the CLI, a hook or a script does can leave the machine.
This process brings loopback up (with the fake web's address), points the test
host names at that address in a private /etc/hosts (bind mount, visible in
this mount namespace only), starts both servers, runs the CLI with the
environment the runner prepared, and writes what happened to `result.json`
next to the spec.
"""
from __future__ import annotations

import fcntl
import importlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from .fake_api import ApiServer, PageServer
from .scenario import Context, Scenario

_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_SIOCSIFADDR = 0x8916
_SIOCSIFNETMASK = 0x891C
_IFF_UP = 0x1


def _sockaddr(ip: str) -> bytes:
    return struct.pack("HH4s8x", socket.AF_INET, 0, socket.inet_aton(ip))


def bring_up_loopback(web_address: str) -> None:
    """`ip link set lo up` plus `ip addr add <web_address>/32 dev lo`, without iproute2.

    The fake web gets a public-looking address on loopback because our `fetch`
    command rightly refuses loopback and private addresses (SSRF protection);
    in this namespace that address reaches nothing but our page server.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifreq = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(s, _SIOCGIFFLAGS, ifreq)[:18])[1]
        fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | _IFF_UP))
        fcntl.ioctl(s, _SIOCSIFADDR, struct.pack("16s", b"lo:web") + _sockaddr(web_address))
        fcntl.ioctl(s, _SIOCSIFNETMASK, struct.pack("16s", b"lo:web") + _sockaddr("255.255.255.255"))


def private_hosts(names: list[str], address: str, workdir: Path) -> bool:
    """Make `names` resolve to `address` for this namespace only. Returns False
    when bind mounts are not possible (then URLs use the address itself)."""
    hosts = workdir / "hosts"
    hosts.write_text("127.0.0.1 localhost\n::1 localhost\n"
                     + "".join(f"{address} {n}\n" for n in names))
    done = subprocess.run(["mount", "--bind", str(hosts), "/etc/hosts"], capture_output=True)
    return done.returncode == 0


def _record_stdout(proc: subprocess.Popen, workdir: Path, started: float) -> None:
    """Copy the CLI's stream-json lines to disk with the time each arrived, so
    tests can measure how long each hook took (hook_started -> hook_response)."""
    with open(workdir / "stdout.jsonl", "wb") as out, open(workdir / "stdout.times", "w") as times:
        for line in proc.stdout:
            out.write(line)
            out.flush()
            times.write(f"{time.monotonic() - started:.4f}\n")


def load_scenario(ref: str, ctx: Context, args: dict) -> Scenario:
    module_name, func_name = ref.split(":")
    return getattr(importlib.import_module(module_name), func_name)(ctx, **args)


def main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    workdir = Path(spec["workdir"])
    result: dict = {"errors": [], "matched": []}
    web_address = spec["web_address"]
    bring_up_loopback(web_address)
    # /sys/class/net shows the namespace sysfs was mounted in; ask the kernel instead.
    result["interfaces"] = sorted(name for _, name in socket.if_nameindex())
    host = spec["pages_host"]
    if not private_hosts([host], web_address, workdir):
        host = web_address
    result["pages_host"] = host

    # Servers bind first; the scenario learns their addresses through Context.
    placeholder = Scenario()
    pages = PageServer(placeholder, Path(spec["tls_cert"]), Path(spec["tls_key"]),
                       workdir / "pages.jsonl", host=web_address, port=spec.get("pages_port", 0))
    ctx = Context(pages_origin=f"https://{host}:{pages.port}", cwd=spec["cwd"], home=spec["home"],
                  plugin_root=spec["plugin_root"], extra=spec.get("context_extra", {}))
    scenario = load_scenario(spec["scenario"], ctx, spec.get("scenario_args", {}))
    placeholder.pages.update(scenario.pages)
    api = ApiServer(scenario, workdir / "requests.jsonl")
    api.start()
    pages.start()

    env = dict(spec["env"])
    env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{api.port}"
    started = time.monotonic()
    with open(workdir / "stderr.txt", "wb") as err:
        proc = subprocess.Popen(spec["argv"], cwd=spec["cwd"], env=env, stdout=subprocess.PIPE,
                                stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
        reader = threading.Thread(target=_record_stdout, args=(proc, workdir, started), daemon=True)
        reader.start()
        try:
            result["exit_code"] = proc.wait(timeout=spec["timeout"])
            result["timed_out"] = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            result["exit_code"] = proc.wait()
            result["timed_out"] = True
        reader.join(timeout=10)
        try:  # leave nothing of the session running (hooks, background shells)
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    result["duration_s"] = round(time.monotonic() - started, 3)
    result["errors"] = scenario.errors
    result["matched"] = scenario.matched
    result["pages_origin"] = ctx.pages_origin
    (workdir / "result.json").write_text(json.dumps(result, indent=1))
    api.stop()
    pages.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
