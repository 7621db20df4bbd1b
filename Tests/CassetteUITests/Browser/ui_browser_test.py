#!/usr/bin/env python3
"""Drives the cassette web UI in headless Chromium (Debian's chromium + chromium-driver, PyPI
selenium) against a real `cassette replay`, then opens a `cassette report` from file:// with the
network off. Started by CassetteUITests/BrowserTests.swift; prints `ok: ...` lines and
`measured: ...` figures, and exits 1 with `FAILED: ...` on the first check that does not hold."""
import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

# The shared module sits beside this script; importing it must not leave __pycache__ in the work tree.
sys.dont_write_bytecode = True
from browser_support import browser, check, total
from browser_support import wait as wait_for

parser = argparse.ArgumentParser()
parser.add_argument("--proxy", required=True, help="http://127.0.0.1:PORT of cassette replay")
parser.add_argument("--count", type=int, required=True, help="recordings in the store")
parser.add_argument("--report", required=True, help="the HTML report file")
parser.add_argument("--secret", required=True, help="a secret one recording holds, which the Drift view must mask")
parser.add_argument("--screenshots", help="directory for the PNGs; none are taken without it")
args = parser.parse_args()
if args.screenshots:
    os.makedirs(args.screenshots, exist_ok=True)
# Generous: the machine is shared; the figures printed are what matters, not these limits.
PATIENCE = 20


def wait(driver, what, predicate):
    return wait_for(driver, what, predicate, PATIENCE)


def click_first_row(driver, what):
    """Clicks the list's first row. The list may be drawn again meanwhile (its conversations and
    gRPC calls arrive after the recordings), which replaces a row found a moment ago: a stale row
    is looked up again rather than failing the walk."""
    def click(d):
        try:
            found = d.find_elements(By.CSS_SELECTOR, "#interactions tbody tr.row")
            if not found:
                return False
            found[0].click()
            return True
        except StaleElementReferenceException:
            return False
    wait(driver, what, click)


def shot(driver, name):
    if args.screenshots:
        driver.save_screenshot(os.path.join(args.screenshots, name + ".png"))


def fetch(path, headers=None, data=None, method=None):
    request = urllib.request.Request(args.proxy + path, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


driver = browser(console_log=True)
try:
    ui = args.proxy + "/__cassette/ui/"
    status, headers, _ = fetch("/__cassette/ui/")
    check(status == 200 and "script-src 'self'" in headers.get("Content-Security-Policy", ""), "the page is served with a CSP allowing only its own script")

    # Cassettes, then the list: the store's count.
    driver.get(ui + "#/cassettes")
    wait(driver, "the cassettes table", lambda d: d.find_elements(By.CSS_SELECTOR, "#cassettes tbody tr"))
    # docs/ui.md's cassettes.png is ui_mixed_store_test.py's: a store of every kind, usage tracked.
    driver.get(ui + "#/interactions")
    wait(driver, "the list's count", lambda d: total(d) is not None)
    check(total(driver) == args.count, "the list shows the store's %d recordings (shows %s)" % (args.count, total(driver)))
    shot(driver, "interactions")

    # The filter narrows the list and is kept in the URL.
    driver.find_element(By.NAME, "path").send_keys("/items/1")
    driver.find_element(By.CSS_SELECTOR, "#filter button").click()
    wait(driver, "the filtered count", lambda d: "path=%2Fitems%2F1" in d.current_url and total(d) is not None and total(d) < args.count)
    narrowed = total(driver)
    rows = driver.find_elements(By.CSS_SELECTOR, "#interactions tbody tr.row")
    check(0 < narrowed < args.count and all("/items/1" in row.text for row in rows), "the path filter narrows the list to %d and keeps it in the URL" % narrowed)
    shared = driver.current_url
    driver.get("about:blank")
    driver.get(shared)
    wait(driver, "the shared link's count", lambda d: total(d) is not None)
    check(total(driver) == narrowed, "a link with the filter shows the same %d rows" % narrowed)

    # The GraphQL operation filter: kept in the URL, and the row names the operation.
    driver.get(ui + "#/interactions")
    wait(driver, "the whole list", lambda d: total(d) == args.count)
    driver.find_element(By.NAME, "operation").send_keys("getuser")
    driver.find_element(By.CSS_SELECTOR, "#filter button").click()
    wait(driver, "the operation's row", lambda d: "operation=getuser" in d.current_url and total(d) == 1 and d.find_elements(By.CSS_SELECTOR, "#interactions tbody tr.row"))
    row = driver.find_elements(By.CSS_SELECTOR, "#interactions tbody tr.row")[0]
    check(row.find_element(By.CSS_SELECTOR, "span.op").text == "query GetUser" and "/graphql" in row.text,
          "the operation filter keeps the one GraphQL request and its row says query GetUser (%s)" % row.text)
    shot(driver, "operation")

    # A detail opens with the right body (a JSON tree).
    driver.get(ui + "#/interactions?path=/items/12")
    wait(driver, "the row of /items/12", lambda d: d.find_elements(By.CSS_SELECTOR, "#interactions tbody tr.row"))
    click_first_row(driver, "a click on the first row")
    wait(driver, "the response body", lambda d: d.find_elements(By.CSS_SELECTOR, "#response-body .json-key"))
    body = driver.find_element(By.ID, "response-body").text
    check('"item 12"' in body and "id:" in body, "the detail of /items/12 shows its JSON body as a tree")
    driver.find_element(By.ID, "copy-curl").click()
    check("curl -X GET" in driver.find_element(By.ID, "curl").text, "copy as curl shows the command")
    shot(driver, "detail")

    # A body holding <script> and <img onerror> is shown, never run.
    driver.get(ui + "#/interactions?path=/page")
    wait(driver, "the row of /page", lambda d: d.find_elements(By.CSS_SELECTOR, "#interactions tbody tr.row"))
    click_first_row(driver, "a click on the first row")
    wait(driver, "the HTML body as text", lambda d: "<script>" in d.find_element(By.ID, "response-body").text)
    time.sleep(0.5)
    check(driver.execute_script("return window.__pwned === undefined") and not driver.find_elements(By.CSS_SELECTOR, "#response-body img"),
          "a <script> and an <img onerror> body are displayed as text and do not run")

    # Live: a request served while the page is open appears; the figure is measured, not asserted.
    driver.get(ui + "#/live")
    wait(driver, "the live feed to connect", lambda d: "following" in d.find_element(By.ID, "live-status").text)
    shot_rows = len(driver.find_elements(By.CSS_SELECTOR, "#live tbody tr"))
    sent = time.monotonic()
    fetch("/items/7")
    wait(driver, "the live row of /items/7", lambda d: any("/items/7" in r.text and "hit" in r.text for r in d.find_elements(By.CSS_SELECTOR, "#live tbody tr")))
    latency = time.monotonic() - sent
    print("measured: live row %.0f ms after the request was sent" % (latency * 1000), flush=True)
    check(len(driver.find_elements(By.CSS_SELECTOR, "#live tbody tr")) > shot_rows, "a request served while the page is open appears live, tagged hit")

    # A miss shows its nearest recording and the field that differs.
    status, _, _ = fetch("/items/7?color=red")
    check(status == 404, "a request with an unrecorded query is a miss")
    def the_miss(d):
        for box in d.find_elements(By.CSS_SELECTOR, "#misses > div.miss"):
            if "/items/7" in box.find_element(By.TAG_NAME, "h3").text and box.find_elements(By.CSS_SELECTOR, ".why-not li"):
                return box
        return None
    miss = wait(driver, "the miss's explanation", the_miss)
    others = [m.find_element(By.TAG_NAME, "h3").text for m in driver.find_elements(By.CSS_SELECTOR, "#misses > div.miss") if m != miss]
    check(not others, "the page itself caused no miss (no favicon request reached the proxy): %s" % others)
    nearest = miss.find_element(By.CSS_SELECTOR, ".nearest-key").text
    reasons = miss.find_element(By.CSS_SELECTOR, ".why-not").text
    check("/items/7" in nearest and "color" in reasons, "the miss shows its nearest recording (%s) and the differing field (%s)" % (nearest, reasons))
    shot(driver, "live")

    # Sessions: one opened by a test, its miss explained, its unused recordings counted.
    status, _, body = fetch("/__cassette/sessions", headers={"Content-Type": "application/json"}, data=b'{"cassette": "dev"}', method="POST")
    check(status == 201, "a session opens (status %d)" % status)
    session = json.loads(body)["id"]
    fetch("/items/3", headers={"X-Cassette-Session": session})
    status, _, _ = fetch("/items/3?size=9", headers={"X-Cassette-Session": session})
    check(status == 404, "the session's request with an unrecorded query misses")
    driver.get(ui + "#/sessions")
    box = wait(driver, "the session's section", lambda d: d.find_elements(By.ID, "session-" + session))[0]
    row = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#sessions tbody tr") if r.text.startswith(session)]
    reasons = " ".join(li.text for li in box.find_elements(By.CSS_SELECTOR, ".why-not li"))
    journal = box.find_elements(By.CSS_SELECTOR, "table tbody tr")
    check(row and " live " in " " + row[0] + " " and row[0].split()[-1] == str(args.count - 1) and "size" in reasons and len(journal) == 2,
          "the Sessions view lists session %s live with its %d unused recordings, its miss's differing field (%s) and its 2 journal entries (row: %s)"
          % (session, args.count - 1, reasons, row))
    shot(driver, "sessions")

    # Live, filtered by session: another client's request stays out.
    driver.get(ui + "#/live?session=" + session)
    wait(driver, "the live feed to connect", lambda d: "following" in d.find_element(By.ID, "live-status").text)
    fetch("/items/4")
    fetch("/items/5", headers={"X-Cassette-Session": session})
    wait(driver, "the session's live row", lambda d: any("/items/5" in r.text for r in d.find_elements(By.CSS_SELECTOR, "#live tbody tr")))
    time.sleep(0.5)
    targets = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#live tbody tr")]
    check(not any("/items/4" in t for t in targets) and all(session in t for t in targets),
          "the Live view filtered by session %s shows only its requests (%s)" % (session, targets))

    # Drift on the proxy's page: no fixtures given, the audit's findings with the value masked.
    driver.get(ui + "#/drift")
    wait(driver, "the audit table", lambda d: d.find_elements(By.CSS_SELECTOR, "#audit tbody tr"))
    audit = driver.find_element(By.ID, "audit").text
    check(driver.find_elements(By.ID, "drift-none") and "GitHub" in audit and args.secret not in driver.find_element(By.TAG_NAME, "body").text,
          "the Drift view shows the audit's finding with its value masked, and says no fixtures were given")

    # The report opens from file:// with the network off.
    driver.set_network_conditions(offline=True, latency=0, download_throughput=0, upload_throughput=0)
    driver.get("file://" + os.path.abspath(args.report) + "#/interactions")
    wait(driver, "the report's count", lambda d: total(d) is not None)
    check(total(driver) == args.count, "the report opened from file:// offline lists the %d recordings" % args.count)
    driver.get("file://" + os.path.abspath(args.report) + "#/interactions?operation=GetUser")
    wait(driver, "the report's operation row", lambda d: total(d) == 1 and d.find_elements(By.CSS_SELECTOR, "#interactions tbody tr.row span.op"))
    check(driver.find_element(By.CSS_SELECTOR, "#interactions tbody tr.row span.op").text == "query GetUser", "the report filters by operation too")
    driver.get("file://" + os.path.abspath(args.report) + "#/interactions?path=/page")
    wait(driver, "the report's /page row", lambda d: d.find_elements(By.CSS_SELECTOR, "#interactions tbody tr.row"))
    click_first_row(driver, "a click on the first row")
    wait(driver, "the report's HTML body as text", lambda d: "<script>" in d.find_element(By.ID, "response-body").text)
    check(driver.execute_script("return window.__pwned === undefined"), "in the report too, a <script> body is text and does not run")
    errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE" and "Content Security Policy" in entry.get("message", "")]
    check(not errors, "the report's CSP allows its one script and style by hash (no violations: %s)" % errors[:1])
    driver.get("file://" + os.path.abspath(args.report) + "#/drift")
    wait(driver, "the report's drift table", lambda d: d.find_elements(By.CSS_SELECTOR, "#drift tbody tr.finding"))
    drift = driver.find_element(By.ID, "drift").text
    check("$.color" in drift and "fieldNotInAPI" in drift and "GET /items/{id}" in drift,
          "the report of --fixtures shows the drift per endpoint: the fixture's $.color the API never sends")
    check(args.secret not in driver.find_element(By.ID, "audit").text, "the report's audit findings are masked too")
    shot(driver, "drift")
    driver.get("file://" + os.path.abspath(args.report) + "#/interactions")
    wait(driver, "the report's list again", lambda d: total(d) is not None)
    shot(driver, "report")
finally:
    driver.quit()
print("ok: all browser checks passed", flush=True)
