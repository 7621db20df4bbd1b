"""What the web UI's browser scripts share: headless Chromium from Debian (chromium +
chromium-driver, driven by the PyPI selenium package; scripts/ensure-browser.sh installs them),
the `ok:` / `FAILED:` lines the Swift tests read, and waiting for the page with a patience that
suits a busy machine. Imported by the ui_*_test.py scripts beside it. `audit` runs axe-core's WCAG 2.1 AA rules in the
page (its script from PyPI's axe-playwright-python, which scripts/ensure-axe.sh installs)."""
import importlib.util
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def fail(message):
    print("FAILED: " + message, flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print("ok: " + message, flush=True)


def browser(console_log=False, size=(1280, 900)):
    """Headless Debian Chromium in a window of `size` (1280x900 unless told); `console_log` keeps
    the page's console (CSP violations show there) for `driver.get_log("browser")`."""
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=%d,%d" % size]:
        options.add_argument(flag)
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, what, predicate, patience):
    """`predicate(driver)` once it is truthy, polled every 20 ms; fails with the page's text after
    `patience` seconds. The limits are generous: the machine is shared, and the figures the
    scripts print are what matters, not these limits."""
    try:
        return WebDriverWait(driver, patience, poll_frequency=0.02).until(lambda d: predicate(d))
    except Exception:
        fail("timed out waiting for " + what + "; page text: " + driver.find_element(By.TAG_NAME, "body").text[:600])


def total(driver):
    """The interactions list's count (`#count`'s data-total), `None` until the list has it."""
    spans = driver.find_elements(By.ID, "count")
    value = spans[0].get_attribute("data-total") if spans else None
    return int(value) if value else None


# The rules of WCAG 2.1 A and AA; a violation of these impacts fails the audit.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AXE_FAILING = ("serious", "critical")
_axe_source = None


def axe_source():
    """axe.min.js as PyPI's axe-playwright-python ships it, found without importing the package
    (its other modules import playwright, which is not installed)."""
    global _axe_source
    if _axe_source is None:
        spec = importlib.util.find_spec("axe_playwright_python")
        if spec is None or not spec.submodule_search_locations:
            fail("axe_playwright_python is not installed; run scripts/ensure-axe.sh")
        with open(os.path.join(list(spec.submodule_search_locations)[0], "axe.min.js"), encoding="utf-8") as file:
            _axe_source = file.read()
    return _axe_source


def audit(driver, view):
    """Runs axe in the page as it is now (injected through the driver, so a page's own
    Content-Security-Policy does not apply to it); prints each violation, of any impact, and fails
    on a serious or critical one. Returns (view, violations, serious or critical)."""
    driver.set_script_timeout(120)
    driver.execute_script(axe_source())
    found = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        axe.run(document, { runOnly: { type: "tag", values: arguments[0] }, resultTypes: ["violations"] })
          .then((result) => done({ version: axe.version, violations: result.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.length, examples: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + " — " + (n.failureSummary || "").split("\\n").slice(1).join(" ").trim()) })) }))
          .catch((error) => done({ error: String(error) }));
        """,
        AXE_TAGS,
    )
    if "error" in found:
        fail("axe could not run in %s: %s" % (view, found["error"]))
    violations = found["violations"]
    serious = [v for v in violations if v["impact"] in AXE_FAILING]
    print("audit: %s (axe %s): %d violations, %d serious or critical%s" % (
        view, found["version"], len(violations), len(serious),
        "".join("\n  - %s [%s] %s: %d nodes; %s" % (v["id"], v["impact"], v["help"], v["nodes"], " | ".join(v["examples"])) for v in violations)), flush=True)
    check(not serious, "%s: no serious or critical WCAG 2.1 AA violation" % view)
    # Headings in order (axe's heading-order is a best practice, outside the WCAG tags): one h1
    # first, and no level skipped on the way down.
    levels = driver.execute_script(
        "return Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6')).filter((h) => h.getClientRects().length).map((h) => Number(h.tagName[1]))")
    skipped = [pair for pair in zip(levels, levels[1:]) if pair[1] > pair[0] + 1]
    check(levels[:1] == [1] and levels.count(1) == 1 and not skipped, "%s: headings in order (%s)" % (view, " ".join("h%d" % level for level in levels)))
    return (view, len(violations), len(serious))
