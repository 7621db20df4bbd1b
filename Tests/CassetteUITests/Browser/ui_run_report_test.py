#!/usr/bin/env python3
"""The Sessions view of HTML reports in headless Chromium (Debian's chromium + chromium-driver,
PyPI selenium), opened from file:// with the network off: the report of a `cassette run` shows
the run's own requests (tagged, its miss with the nearest recording and the differing field, its
unused recordings) and each session the command opened with its journal; the report of a store
says a store keeps no sessions. Both views of the run's report pass axe-core's WCAG 2.1 AA audit
(browser_support.audit). Started by CassetteUITests/BrowserTests.swift; prints `ok: ...`
lines and exits 1 with `FAILED: ...` on the first check that does not hold."""
import argparse
import os
import sys

from selenium.webdriver.common.by import By

# The shared module sits beside this script; importing it must not leave __pycache__ in the work tree.
sys.dont_write_bytecode = True
from browser_support import audit, browser, check
from browser_support import wait as wait_for

parser = argparse.ArgumentParser()
parser.add_argument("--run-report", required=True, help="the report `cassette run --report` wrote")
parser.add_argument("--store-report", required=True, help="a report `cassette report --html` wrote")
parser.add_argument("--session", required=True, help="the id of the session the run's command opened")
parser.add_argument("--unused", type=int, required=True, help="recordings the run left unused outside sessions")
parser.add_argument("--screenshots", help="directory for the PNGs; none are taken without it")
args = parser.parse_args()
PATIENCE = 20


def wait(driver, what, predicate):
    return wait_for(driver, what, predicate, PATIENCE)


driver = browser(console_log=True)
try:
    driver.set_network_conditions(offline=True, latency=0, download_throughput=0, upload_throughput=0)
    driver.get("file://" + os.path.abspath(args.run_report) + "#/sessions")
    run = wait(driver, "the run's section", lambda d: d.find_elements(By.ID, "session-run"))[0]
    journal = [r.text for r in run.find_elements(By.CSS_SELECTOR, "table tbody tr")]
    check(len(journal) == 2 and "hit" in journal[0] and "/items/1" in journal[0] and "miss" in journal[1],
          "the run's journal has its two requests outside the session, tagged hit and miss (%s)" % journal)
    reasons = " ".join(li.text for li in run.find_elements(By.CSS_SELECTOR, ".why-not li"))
    nearest = run.find_element(By.CSS_SELECTOR, ".nearest-key").text
    check("/items/1" in nearest and "color" in reasons, "the run's miss shows its nearest recording (%s) and the differing field (%s)" % (nearest, reasons))
    unused = run.find_element(By.CSS_SELECTOR, "details.unused summary").text
    check("(%d)" % args.unused in unused, "the run's unused recordings are counted (%s)" % unused)
    rows = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#sessions tbody tr")]
    session = [r for r in rows if r.startswith(args.session)]
    check(len(rows) == 2 and session and "ended" in session[0], "the sessions table lists the run and session %s, ended (%s)" % (args.session, rows))
    box = driver.find_element(By.ID, "session-" + args.session)
    entries = [r.text for r in box.find_elements(By.CSS_SELECTOR, "table tbody tr")]
    reasons = " ".join(li.text for li in box.find_elements(By.CSS_SELECTOR, ".why-not li"))
    check(len(entries) == 2 and "/items/2" in entries[0] and "size" in reasons,
          "the session's journal has its 2 requests and its miss's differing field (%s)" % reasons)
    check(not box.find_elements(By.PARTIAL_LINK_TEXT, "live"), "the report offers no live link for a session")
    errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE" and "Content Security Policy" in entry.get("message", "")]
    check(not errors, "no CSP violations (%s)" % errors[:1])
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
        driver.save_screenshot(os.path.join(args.screenshots, "report-sessions.png"))
    audit(driver, "a run's report: Sessions, with the run's and a session's misses and journals")
    driver.get("file://" + os.path.abspath(args.run_report) + "#/live")
    wait(driver, "the run's requests", lambda d: d.find_elements(By.CSS_SELECTOR, "#live tbody tr") and d.find_elements(By.CSS_SELECTOR, "#misses .why-not li"))
    audit(driver, "a run's report: the run's requests, with a miss")

    driver.get("file://" + os.path.abspath(args.store_report) + "#/sessions")
    none = wait(driver, "the store report's note", lambda d: d.find_elements(By.ID, "sessions-none"))[0]
    check("keeps no sessions" in none.text, "a store's report says a store keeps no sessions (%s)" % none.text)
finally:
    driver.quit()
print("ok: all report session checks passed", flush=True)
