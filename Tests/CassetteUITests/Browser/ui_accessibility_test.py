#!/usr/bin/env python3
"""The web UI's WCAG 2.1 AA audit, in headless Chromium (Debian's chromium + chromium-driver, PyPI
selenium): axe-core (its axe.min.js, from the PyPI axe-playwright-python package that
scripts/ensure-axe.sh installs) runs in every view a proxy serves and in every view of the
report opened from file:// with the network off, with the rules tagged wcag2a, wcag2aa, wcag21a
and wcag21aa; a serious or critical violation fails. Then, keyboard only: Tab to a recording,
Enter opens it, focus is visible, the detail's link leads back and the focus is on the recording
again; the list filters as you type. Started by CassetteUITests/BrowserTests.swift; prints `ok:`
lines and `audit:` lines (violations per view, every impact), exits 1 with `FAILED:` on the first
check that does not hold."""
import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

# The shared module sits beside this script; importing it must not leave __pycache__ in the work tree.
sys.dont_write_bytecode = True
from browser_support import audit as axe_audit
from browser_support import browser, check, fail, total
from browser_support import wait as wait_for

parser = argparse.ArgumentParser()
parser.add_argument("--proxy", required=True, help="http://127.0.0.1:PORT of cassette replay")
parser.add_argument("--fixtures-ui", required=True, help="the page of `cassette ui --fixtures DIR`: http://127.0.0.1:PORT/__cassette/ui/")
parser.add_argument("--report", required=True, help="the HTML report of the same store, with --fixtures")
args = parser.parse_args()
PATIENCE = 20
# Tabs down the list: beyond the rows drawn at first (a screenful and 20 more), so the walk
# crosses redraws. The store holds more rows than this.
TABS = 80
results = []


def wait(driver, what, predicate):
    return wait_for(driver, what, predicate, PATIENCE)


def audit(driver, view):
    results.append(axe_audit(driver, view))


def rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#interactions tbody tr.row:not(.loading)")


def fetch(path, headers=None, data=None, method=None):
    request = urllib.request.Request(args.proxy + path, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def tab_until(driver, what, predicate, limit=60):
    """Presses Tab until the focused element satisfies `predicate`; fails after `limit` presses."""
    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        active = driver.switch_to.active_element
        if predicate(active):
            return active
    fail("Tab never reached " + what)


def focus_ring(driver):
    return driver.execute_script("const s = getComputedStyle(document.activeElement); return s.outlineStyle + ' ' + s.outlineWidth")


def row_id(driver, text):
    """The id of the first row showing `text`; None while the list is still being drawn again
    (a row found a moment ago may have been replaced)."""
    try:
        return next((row.get_attribute("data-id") for row in rows(driver) if text in row.text), None)
    except StaleElementReferenceException:
        return None


def audit_views(driver, base, where):
    driver.get(base + "#/cassettes")
    wait(driver, "the cassettes table", lambda d: d.find_elements(By.CSS_SELECTOR, "#cassettes tbody tr"))
    audit(driver, where + " Cassettes")
    driver.get(base + "#/interactions")
    wait(driver, "the list's rows and conversations", lambda d: rows(d) and d.find_elements(By.CSS_SELECTOR, "#conversations tbody tr"))
    audit(driver, where + " Interactions")
    driver.get(base + "#/interactions?path=/items/12")
    recording = wait(driver, "the row of /items/12", lambda d: row_id(d, "/items/12"))
    driver.get(base + "#/interaction?id=" + recording)
    wait(driver, "the response body", lambda d: d.find_elements(By.CSS_SELECTOR, "#response-body .json-key"))
    audit(driver, where + " a recording's detail")
    driver.get(base + "#/conversation?id=" + conversation)
    wait(driver, "the timeline", lambda d: d.find_elements(By.ID, "conversation-end"))
    audit(driver, where + " a WebSocket conversation")
    driver.get(base + "#/conversation?id=" + call)
    wait(driver, "the call's messages", lambda d: d.find_elements(By.CSS_SELECTOR, "#timeline li.grpc .json-key") and d.find_elements(By.ID, "conversation-end"))
    audit(driver, where + " a gRPC call")


driver = browser(console_log=True)
try:
    ui = args.proxy + "/__cassette/ui/"
    _, listed = fetch("/__cassette/ui/api/conversations")
    listed = json.loads(listed)["conversations"]
    conversation = str(next(item for item in listed if not item.get("grpc"))["id"])
    call = str(next(item for item in listed if item.get("grpc"))["id"])
    audit_views(driver, ui, "proxy:")

    # Live, with a hit and a miss whose nearest recording is explained.
    driver.get(ui + "#/live")
    wait(driver, "the live feed to connect", lambda d: "following" in d.find_element(By.ID, "live-status").text)
    fetch("/items/7")
    status, _ = fetch("/items/7?color=red")
    check(status == 404, "a request with an unrecorded query is a miss")
    wait(driver, "the miss's explanation", lambda d: d.find_elements(By.CSS_SELECTOR, "#misses .why-not li"))
    error_tag = driver.execute_script("return getComputedStyle(document.querySelector('#tags a.tag.error')).color")
    check(error_tag == "rgb(29, 35, 48)", "the error tag's text is dark on its pink (%s), not red at 3.57:1" % error_tag)
    audit(driver, "proxy: Live with a miss")

    # Sessions: one opened by a test (in the proxy's own mode, replay only), with a miss.
    status, body = fetch("/__cassette/sessions", headers={"Content-Type": "application/json"}, data=b'{"cassette": "dev"}', method="POST")
    check(status == 201, "a session opens (status %d)" % status)
    session = json.loads(body)["id"]
    fetch("/items/3", headers={"X-Cassette-Session": session})
    fetch("/items/3?size=9", headers={"X-Cassette-Session": session})
    driver.get(ui + "#/sessions")
    wait(driver, "the session's section", lambda d: d.find_elements(By.ID, "session-" + session))
    row = [r for r in driver.find_elements(By.CSS_SELECTOR, "#sessions tbody tr") if r.text.startswith(session)][0]
    mode = row.find_elements(By.TAG_NAME, "td")[3].text
    check(mode == "replay only", "the session's Mode column says what it does (%s), not none" % mode)
    audit(driver, "proxy: Sessions")

    driver.get(ui + "#/drift")
    wait(driver, "the audit table", lambda d: d.find_elements(By.CSS_SELECTOR, "#audit tbody tr"))
    audit(driver, "proxy: Drift (the audit; no fixtures on a proxy)")

    # Drift with fixtures: `cassette ui --fixtures DIR`, with what `export --fixtures` wrote.
    driver.get(args.fixtures_ui + "#/drift")
    wait(driver, "the drift table", lambda d: d.find_elements(By.CSS_SELECTOR, "#drift tbody tr.finding"))
    drift = driver.find_element(By.ID, "drift").text
    check("websocket/" not in drift and "(no recording)" not in drift,
          "the Drift view does not list the WebSocket conversations export --fixtures wrote as fixtures without a recording")
    check(driver.find_elements(By.CSS_SELECTOR, "#drift tr.endpoint.clean"), "the Drift view has clean endpoints (their rows are audited)")
    audit(driver, "cassette ui --fixtures: Drift with fixtures")

    # The keyboard alone: Tab to a recording, Enter, back, the focus where it was.
    driver.get(ui + "#/interactions")
    wait(driver, "the list's rows", rows)
    # A page just loaded: nothing has the focus, so Tab starts at the top (a click could open a row).
    link = tab_until(driver, "a recording's link", lambda e: e.tag_name == "a" and "open" in (e.get_attribute("class") or "") and e.find_elements(By.XPATH, "ancestor::table[@id='interactions']"))
    ring = focus_ring(driver)
    check(ring.startswith("solid"), "the focused recording's link shows a focus ring (%s)" % ring)
    opened = link.find_element(By.XPATH, "ancestor::tr").get_attribute("data-id")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait(driver, "the detail opened with Enter", lambda d: "#/interaction?id=" + opened in d.current_url and d.find_elements(By.ID, "response-body"))
    check(True, "Enter on the recording's link opens its detail (id %s)" % opened)
    tab_until(driver, "the link back to the list", lambda e: e.get_attribute("id") == "back")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait(driver, "the list again", lambda d: d.current_url.endswith("#/interactions") and rows(d))
    focused = wait(driver, "the focus on the opened recording", lambda d: d.switch_to.active_element.find_elements(By.XPATH, "ancestor::tr[@data-id='%s']" % opened))
    check(focused, "back in the list, the focus is on the recording that was opened")
    # Tab walks on down the rows: past the first screenful the list scrolls and draws its rows
    # anew, and the focus stays on the row it was on.
    row_index = "const r = document.activeElement.closest('#interactions tr.row'); return r ? Number(r.dataset.index) : null"
    start = driver.execute_script(row_index)
    for _ in range(TABS):
        ActionChains(driver).send_keys(Keys.TAB).perform()
    index = driver.execute_script(row_index)
    scrolled = driver.execute_script("return document.getElementById('scroller').scrollTop")
    check(index == start + TABS and scrolled > 0,
          "%d more Tabs walk down the list one row each, scrolling it (row %s has the focus, %d px down)" % (TABS, index, scrolled))

    # The filter applies as you type, and the field keeps the focus.
    driver.get(ui + "#/interactions")
    wait(driver, "the whole list", lambda d: total(d) is not None)
    whole = total(driver)
    field = driver.find_element(By.NAME, "path")
    field.click()
    ActionChains(driver).send_keys("/items/1").perform()
    wait(driver, "the list filtered as typed", lambda d: "path=%2Fitems%2F1" in d.current_url and total(d) is not None and total(d) < whole)
    time.sleep(0.5)
    ActionChains(driver).send_keys("2").perform()
    wait(driver, "the list filtered again", lambda d: "path=%2Fitems%2F12" in d.current_url and total(d) == 1)
    active = driver.switch_to.active_element
    check(active.get_attribute("name") == "path" and active.get_attribute("value") == "/items/12",
          "typing filters the list without Enter (%d of %d rows), and the field keeps the focus and the text" % (total(driver), whole))

    # The report, opened from file:// with the network off.
    driver.set_network_conditions(offline=True, latency=0, download_throughput=0, upload_throughput=0)
    report = "file://" + os.path.abspath(args.report)
    audit_views(driver, report, "report:")
    driver.get(report + "#/sessions")
    wait(driver, "the report's sessions note", lambda d: d.find_elements(By.ID, "sessions-none"))
    audit(driver, "report: Sessions")
    driver.get(report + "#/drift")
    wait(driver, "the report's drift", lambda d: d.find_elements(By.CSS_SELECTOR, "#drift tbody tr.finding"))
    check("websocket/" not in driver.find_element(By.ID, "drift").text, "the report's Drift view does not list the WebSocket fixtures")
    audit(driver, "report: Drift with fixtures")
finally:
    driver.quit()
print("audited: " + "; ".join("%s %d (%d serious or critical)" % r for r in results), flush=True)
print("ok: all accessibility checks passed", flush=True)
