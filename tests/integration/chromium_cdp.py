"""Drive Debian's headless Chromium over the Chrome DevTools Protocol, with no extra packages.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol messages from file
descriptor 3 and writes to descriptor 4, each message JSON ended by a NUL byte. That needs
nothing from PyPI and opens no port. Networking is cut three ways: the page is emulated
offline, every proxy points at a closed local port, and every host name resolves to nothing;
every request the page makes is still recorded, so tests can assert that none was attempted.

Used by ``tests/integration/test_html_browser.py`` and ``bench/html_layout.py``.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM_FLAGS", "find_chromium", "Browser", "Page", "CDPError"]

#: Flags from the project's brief, plus the ones that keep a test browser quiet and offline.
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--disable-domain-reliability",
    "--no-default-browser-check",
    "--no-pings",
    "--mute-audio",
    "--hide-scrollbars",
    "--proxy-server=127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--allow-file-access-from-files",
    "--remote-debugging-pipe",
)


class CDPError(RuntimeError):
    """A protocol command failed, timed out, or the browser went away."""


def find_chromium() -> str | None:
    """Path of a Chromium executable: ``$KG_CHROMIUM``, else ``chromium`` on PATH, else None."""
    env = os.environ.get("KG_CHROMIUM")
    if env and Path(env).exists():
        return env
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class _Pipe:
    """The NUL-delimited JSON message pipe: a reader thread plus a synchronous ``send``."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd
        self._next_id = 0
        self._lock = threading.Lock()
        self._cv = threading.Condition()
        self._responses: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.closed = False
        self._thread = threading.Thread(target=self._read_loop, name="cdp-reader", daemon=True)
        self._thread.start()

    def _read_loop(self) -> None:
        buf = bytearray()
        try:
            while True:
                chunk = os.read(self._read_fd, 1 << 20)
                if not chunk:
                    break
                start = len(buf)
                buf += chunk
                cut = buf.find(b"\0", start)
                while cut >= 0:
                    message = json.loads(bytes(buf[:cut]))
                    del buf[: cut + 1]
                    with self._cv:
                        if "id" in message:
                            self._responses[message["id"]] = message
                        else:
                            self.events.append(message)
                        self._cv.notify_all()
                    cut = buf.find(b"\0")
        except OSError:
            pass
        finally:
            with self._cv:
                self.closed = True
                self._cv.notify_all()

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        timeout: float = 60.0,
    ) -> dict[str, Any]:
        with self._lock:
            self._next_id += 1
            mid = self._next_id
        message: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode("utf-8") + b"\0"
        with self._lock:
            view = memoryview(data)
            while view:
                written = os.write(self._write_fd, view)
                view = view[written:]
        with self._cv:
            ok = self._cv.wait_for(lambda: mid in self._responses or self.closed, timeout)
            if not ok:
                raise CDPError(f"{method}: no answer in {timeout:g} s")
            if mid not in self._responses:
                raise CDPError(f"{method}: the browser closed the pipe")
            response = self._responses.pop(mid)
        if "error" in response:
            raise CDPError(
                f"{method}: {response['error'].get('message')} {response['error'].get('data', '')}"
            )
        return response.get("result", {})

    def wait_event(
        self, predicate: Callable[[dict[str, Any]], bool], *, start: int = 0, timeout: float = 30.0
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cv:
            seen = start
            while True:
                for event in self.events[seen:]:
                    if predicate(event):
                        return event
                seen = len(self.events)
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise CDPError("timed out waiting for a browser event")
                self._cv.wait(left)


class Browser:
    """One headless Chromium with a fresh profile; use as a context manager::

    with Browser() as browser:
        page = browser.new_page()
        page.goto(Path("graph.html").resolve().as_uri())
    """

    def __init__(
        self, executable: str | None = None, *, width: int = 1400, height: int = 900
    ) -> None:
        exe = executable or find_chromium()
        if not exe:
            raise FileNotFoundError("no chromium on PATH; run scripts/install-system-deps.sh")
        self.width, self.height = width, height
        self.profile = tempfile.mkdtemp(prefix="kg-chromium-")
        self.log_path = Path(self.profile) / "chromium.log"
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()

        def child_fds() -> None:  # runs in the child before exec: put the pipe ends on 3 and 4
            a = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [
            exe,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}",
            "about:blank",
        ]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                pass_fds=(3, 4),
                preexec_fn=child_fds,
            )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._pipe = _Pipe(from_browser_r, to_browser_w)
        self._fds = (from_browser_r, to_browser_w)
        try:
            self.version = self._pipe.send("Browser.getVersion", timeout=60)
        except CDPError as err:
            self.close()
            raise CDPError(f"chromium did not start: {err}; log: {self.log_tail()}") from err

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def new_page(self) -> Page:
        target = self._pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self._pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        return Page(self._pipe, session, target, self.width, self.height)

    def close(self) -> None:
        try:
            if not self._pipe.closed:
                self._pipe.send("Browser.close", timeout=10)
        except (CDPError, OSError, AttributeError):
            pass
        proc = getattr(self, "proc", None)
        if proc is not None:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        for fd in getattr(self, "_fds", ()):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    """One tab: navigation, script evaluation, real mouse and keyboard input, screenshots,
    and the console errors and requests seen since the page was opened."""

    def __init__(self, pipe: _Pipe, session: str, target: str, width: int, height: int) -> None:
        self._pipe = pipe
        self.session = session
        self.target = target
        self._start = len(pipe.events)
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable")
        self.call(
            "Network.emulateNetworkConditions",
            offline=True,
            latency=0,
            downloadThroughput=0,
            uploadThroughput=0,
        )
        self.call("Network.setCacheDisabled", cacheDisabled=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def call(self, method: str, timeout: float = 60.0, **params: Any) -> dict[str, Any]:
        return self._pipe.send(method, params, session=self.session, timeout=timeout)

    def _events(self) -> list[dict[str, Any]]:
        with self._pipe._cv:
            return [
                e for e in self._pipe.events[self._start :] if e.get("sessionId") == self.session
            ]

    def goto(self, url: str, *, timeout: float = 60.0) -> None:
        mark = len(self._pipe.events)
        result = self.call("Page.navigate", url=url)
        if result.get("errorText"):
            raise CDPError(f"cannot open {url}: {result['errorText']}")
        self._pipe.wait_event(
            lambda e: (
                e.get("sessionId") == self.session and e.get("method") == "Page.loadEventFired"
            ),
            start=mark,
            timeout=timeout,
        )

    def evaluate(self, expression: str, *, timeout: float = 60.0) -> Any:
        """The JSON value of ``expression`` (promises are awaited); page exceptions raise."""
        result = self.call(
            "Runtime.evaluate",
            timeout=timeout,
            expression=expression,
            returnByValue=True,
            awaitPromise=True,
            userGesture=True,
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise CDPError(f"page script failed: {text}")
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, *, timeout: float = 30.0, interval: float = 0.05) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise CDPError(f"timed out after {timeout:g} s waiting for: {expression}")
            time.sleep(interval)

    def click(self, x: float, y: float) -> None:
        """A real left click at page coordinates (CSS pixels)."""
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        self.call(
            "Input.dispatchMouseEvent", type="mousePressed", x=x, y=y, button="left", clickCount=1
        )
        self.call(
            "Input.dispatchMouseEvent", type="mouseReleased", x=x, y=y, button="left", clickCount=1
        )

    def type_text(self, text: str) -> None:
        self.call("Input.insertText", text=text)

    def press(self, key: str) -> None:
        codes = {"Enter": 13, "Escape": 27, "ArrowDown": 40, "ArrowUp": 38, "Tab": 9}
        extra: dict[str, Any] = {
            "key": key,
            "code": key,
            "windowsVirtualKeyCode": codes.get(key, 0),
        }
        down = dict(extra, type="keyDown")
        if key == "Enter":
            down["text"] = "\r"
        self.call("Input.dispatchKeyEvent", **down)
        self.call("Input.dispatchKeyEvent", **dict(extra, type="keyUp"))

    def screenshot(self, path: str | Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def requests(self) -> list[str]:
        """URLs of every request the page started (the page itself included)."""
        return [
            e["params"]["request"]["url"]
            for e in self._events()
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and browser log errors (CSP violations included)."""
        out = []
        for e in self._events():
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(
                    "console: "
                    + " ".join(
                        str(a.get("value", a.get("description", "")))
                        for a in params.get("args", [])
                    )
                )
            elif method == "Runtime.exceptionThrown":
                d = params.get("exceptionDetails", {})
                out.append(
                    "exception: " + str(d.get("exception", {}).get("description") or d.get("text"))
                )
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                out.append(
                    f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".strip()
                )
        return out
