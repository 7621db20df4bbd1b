#!/usr/bin/env python3
"""The interactions list of a large store in headless Chromium (Debian's chromium + chromium-driver,
PyPI selenium): the count, rows bounded in the page however many the store holds (virtualized),
the filter, the last row after a scroll to the end. Started by CassetteUITests/BrowserTests.swift
and by Benchmarks/ui-list.sh. Prints `ok: ...` lines, `measured: ...` figures and a last `json: {...}`
line (medians over --rounds); exits 1 with `FAILED: ...` on the first check that does not hold.

The figures come from the page's own `performance.mark("cassette-rows")`, set one frame after a
draw whose rows are all loaded: first rows are counted from the navigation's start (page, script,
data, draw), the filter and the scroll from the moment the script submits or scrolls."""
import argparse
import json
import statistics
import sys

from selenium.webdriver.common.by import By

# The shared module sits beside this script; importing it must not leave __pycache__ in the work tree.
sys.dont_write_bytecode = True
from browser_support import browser, check, total
from browser_support import wait as wait_for

parser = argparse.ArgumentParser()
parser.add_argument("--ui", required=True, help="the page: http://127.0.0.1:PORT/ of cassette ui, or a proxy's /__cassette/ui/")
parser.add_argument("--count", type=int, required=True, help="recordings in the store")
parser.add_argument("--filter", required=True, help="a path fragment that some rows hold")
parser.add_argument("--filtered", type=int, required=True, help="how many rows the filter keeps")
parser.add_argument("--rounds", type=int, default=1, help="page loads measured (medians printed)")
args = parser.parse_args()
# Generous: the machine is shared; the figures printed are what matters, not this limit.
PATIENCE = 60
# Rows the page may hold at once whatever the store's size: a screenful plus the overscan.
MOST_ROWS = 150


def wait(driver, what, predicate):
    return wait_for(driver, what, predicate, PATIENCE)


def marks(driver):
    return driver.execute_script("return performance.getEntriesByName('cassette-rows').map((m) => ({ at: m.startTime, detail: m.detail }))")


def drawn_rows(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#interactions tbody tr.row')).map((r) => [Number(r.dataset.index), r.textContent])")


def round_trip(driver, number):
    driver.get("about:blank")
    driver.get(args.ui + "#/interactions")
    first = wait(driver, "the first rows", lambda d: marks(d) or None)[0]
    rows = drawn_rows(driver)
    check(total(driver) == args.count, "round %d: the list counts the store's %d recordings (shows %s)" % (number, args.count, total(driver)))
    check(0 < len(rows) <= MOST_ROWS and rows[0][0] == 0,
          "round %d: %d rows are in the page for %d recordings, from the first" % (number, len(rows), args.count))

    # The filter, from the submit to the narrowed rows drawn.
    driver.execute_script("performance.clearMarks('cassette-rows')")
    field = driver.find_element(By.NAME, "path")
    field.clear()
    field.send_keys(args.filter)
    started = driver.execute_script("const t = performance.now(); document.querySelector('#filter button').click(); return t")
    filtered = wait(driver, "the filtered rows", lambda d: [m for m in marks(d) if m["detail"]["total"] == args.filtered] or None)[0]
    rows = drawn_rows(driver)
    check(total(driver) == args.filtered and rows and all(args.filter in text for _, text in rows),
          "round %d: the path filter %s keeps %d rows (shows %s)" % (number, args.filter, args.filtered, total(driver)))

    # Back to every row, then a scroll to the very end: the last row, fetched from deep in the store.
    driver.get(args.ui + "#/interactions")
    wait(driver, "the whole list again", lambda d: [m for m in marks(d) if m["detail"]["total"] == args.count] or None)
    driver.execute_script("performance.clearMarks('cassette-rows')")
    scrolled = driver.execute_script(
        "const s = document.getElementById('scroller'); const t = performance.now(); s.scrollTop = s.scrollHeight; return t")
    end = wait(driver, "the last row", lambda d: [m for m in marks(d) if m["detail"]["last"] == args.count] or None)[0]
    check(any(index == args.count - 1 for index, _ in drawn_rows(driver)), "round %d: the scroll to the end draws the last row" % number)
    rows = drawn_rows(driver)
    check(len(rows) <= MOST_ROWS, "round %d: after the scroll to row %d the page still holds %d rows" % (number, args.count, len(rows)))
    figures = {"firstRowsMs": first["at"], "filterMs": filtered["at"] - started, "scrollToEndMs": end["at"] - scrolled}
    print("measured: round %d: first rows %.0f ms after navigation, filter %.0f ms, scroll to the end %.0f ms"
          % (number, figures["firstRowsMs"], figures["filterMs"], figures["scrollToEndMs"]), flush=True)
    return figures


driver = browser()
try:
    results = [round_trip(driver, number) for number in range(1, args.rounds + 1)]
finally:
    driver.quit()
summary = {name: round(statistics.median(r[name] for r in results), 1) for name in results[0]}
summary.update({"interactions": args.count, "rounds": args.rounds})
print("ok: the list stays virtualized at %d rows" % args.count, flush=True)
print("json: " + json.dumps(summary), flush=True)
