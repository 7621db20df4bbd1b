#!/usr/bin/env python3
"""The Cassettes view of `cassette ui` (no proxy) over a store of REST, GraphQL, WebSocket and gRPC
recordings, in headless Chromium (Debian's chromium + chromium-driver, PyPI selenium): each
cassette's Unused is the figure its `--track-usage` replay's summary printed (recordings, and the
gRPC methods apart), and a cassette no tracked replay served says `unknown`, described by a note
that names --track-usage. The view has no WCAG 2.1 AA violation at all (axe-core,
browser_support.audit). Takes docs/ui.md's cassettes.png. Started by
CassetteUITests/BrowserTests+MixedStore.swift; prints `ok:` and `audit:` lines, exits 1 with
`FAILED:` on the first check that does not hold."""
import argparse
import os
import sys

from selenium.webdriver.common.by import By

# The shared module sits beside this script; importing it must not leave __pycache__ in the work tree.
sys.dont_write_bytecode = True
from browser_support import audit, browser, check
from browser_support import wait as wait_for

parser = argparse.ArgumentParser()
parser.add_argument("--ui", required=True, help="cassette ui's page: http://127.0.0.1:PORT/__cassette/ui/")
parser.add_argument("--unused", action="append", default=[], help="CASSETTE=TEXT: the Unused cell expected for a cassette")
parser.add_argument("--screenshots", help="directory for cassettes.png (docs/ui.md's); none is taken without it")
args = parser.parse_args()
expected = dict(item.split("=", 1) for item in args.unused)

driver = browser()
try:
    driver.get(args.ui + "#/cassettes")
    wait_for(driver, "the cassettes", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#cassettes tbody tr")) == len(expected), 20)
    headings = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#cassettes thead th")]
    check(headings == ["Name", "Interactions", "gRPC calls", "WebSocket conversations", "Hosts", "Last recorded", "Size", "Unused"],
          "the columns count HTTP recordings, gRPC calls and WebSocket conversations apart (%s)" % headings)
    rows = {}
    for tr in driver.find_elements(By.CSS_SELECTOR, "#cassettes tbody tr"):
        cells = tr.find_elements(By.TAG_NAME, "td")
        rows[cells[0].text] = (dict(zip(headings, [td.text for td in cells])), cells[-1])
    for name, text in expected.items():
        row, cell = rows.get(name, ({}, None))
        check(row.get("Unused") == text, "%s: Unused is %s, as its tracked replay counted (%s)" % (name, text, row))
        if text == "unknown":
            check(cell.get_attribute("aria-describedby") == "unused-unknown", "%s: the unknown cell is described by the note" % name)
    notes = driver.find_elements(By.ID, "unused-unknown")
    check(len(notes) == 1 and "--track-usage" in notes[0].text, "a note says why Unused is unknown and names --track-usage")
    _, violations, _ = audit(driver, "cassette ui: Cassettes of a store of every kind")
    check(violations == 0, "the Cassettes view has no WCAG 2.1 AA violation, of any impact")
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
        driver.save_screenshot(os.path.join(args.screenshots, "cassettes.png"))
    print("ok: all mixed store checks passed", flush=True)
finally:
    driver.quit()
