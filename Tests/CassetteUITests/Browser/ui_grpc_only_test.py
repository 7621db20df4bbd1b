#!/usr/bin/env python3
"""A store of gRPC calls only, in headless Chromium (Debian's chromium + chromium-driver, PyPI
selenium) at a common laptop's 1280x800: the Interactions view says in one line, in its status
region, that the store has no HTTP interactions, draws no empty table, and the "gRPC calls" table
starts in view without a scroll; on a real `cassette replay` and in the store's `cassette report`
opened from file:// with the network off. The other views hold no empty table either: Cassettes
counts the calls, measures their messages, names the upstream they were recorded from and the
methods no call used yet, Live says in one line that no request came until the grpcio client's call
(replayed) shows in its table, Sessions without any, a session's empty journal and the audit
without findings are one line each, a session counts the gRPC methods it left unused, and the
report's Drift counts the methods it compared and each method's calls (not its messages). The sizes are the page's own boxes
(getBoundingClientRect). Every view passes axe-core's WCAG 2.1 AA rules (browser_support.audit),
and the keyboard alone reaches a call, opens it and comes back to it. Started by
CassetteUITests/BrowserTests+GRPCOnly.swift; prints `ok:`, `audit:` and `measured:` lines, exits 1
with `FAILED:` on the first check that does not hold."""
import argparse
import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

# The shared module sits beside this script; importing it must not leave __pycache__ in the work tree.
sys.dont_write_bytecode = True
from browser_support import audit, browser, check, fail
from browser_support import wait as wait_for

parser = argparse.ArgumentParser()
parser.add_argument("--ui", required=True, help="the proxy's page: http://127.0.0.1:PORT/__cassette/ui/")
parser.add_argument("--report", required=True, help="the HTML report of the same store")
parser.add_argument("--calls", type=int, required=True, help="how many gRPC calls the store holds")
parser.add_argument("--screenshots", help="directory for grpc-calls.png (docs/ui.md's); none is taken without it")
args = parser.parse_args()
PATIENCE = 20
WIDTH, HEIGHT = 1280, 800
PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Peers", "grpc_peer.py")

# What the Interactions view's boxes are, in CSS pixels from the viewport's top.
LAYOUT = """
const count = document.getElementById("count");
const style = getComputedStyle(count);
const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.4;
const box = count.getBoundingClientRect();
const list = document.getElementById("interactions");
const calls = document.getElementById("grpc-calls");
const heading = calls.previousElementSibling;
const first = calls.querySelector("tbody tr");
return {
  viewport: [window.innerWidth, window.innerHeight], text: count.textContent, role: count.getAttribute("role"),
  messageHeight: box.height, line: line, listShown: list.getClientRects().length > 0,
  listHeight: list.getClientRects().length ? document.getElementById("scroller").getBoundingClientRect().height : 0,
  heading: heading.tagName + " " + heading.textContent, headingTop: heading.getBoundingClientRect().top,
  firstRowBottom: first.getBoundingClientRect().bottom,
};
"""


def wait(driver, what, predicate):
    return wait_for(driver, what, predicate, PATIENCE)


def shoot(driver, name):
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
        driver.save_screenshot(os.path.join(args.screenshots, name))


def calls(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#grpc-calls tbody tr.row")


def interactions_checks(driver, base, where):
    driver.get(base + "#/interactions")
    wait(driver, "the gRPC calls", lambda d: len(calls(d)) == args.calls and d.find_element(By.ID, "count").text)
    if where == "proxy":
        shoot(driver, "grpc-calls.png")
    boxes = driver.execute_script(LAYOUT)
    print("measured: %s at %dx%d: the empty list's message %.0f px tall (a line is %.0f px), the empty table %s; %s starts at %.0f px, its first row ends at %.0f px"
          % (where, boxes["viewport"][0], boxes["viewport"][1], boxes["messageHeight"], boxes["line"],
             "%.0f px tall" % boxes["listHeight"] if boxes["listShown"] else "not drawn", boxes["heading"], boxes["headingTop"], boxes["firstRowBottom"]), flush=True)
    check(boxes["viewport"] == [WIDTH, HEIGHT], "%s: the viewport is %dx%d (%s)" % (where, WIDTH, HEIGHT, boxes["viewport"]))
    check(0 <= boxes["headingTop"] and boxes["firstRowBottom"] <= HEIGHT,
          "%s: the gRPC calls are in view without a scroll (heading at %.0f px, first row ends at %.0f px of %d)"
          % (where, boxes["headingTop"], boxes["firstRowBottom"], HEIGHT))
    check(not boxes["listShown"], "%s: no empty table stands in the way (%.0f px)" % (where, boxes["listHeight"]))
    check(0 < boxes["messageHeight"] <= boxes["line"] * 1.5,
          "%s: the empty list is one line (%.0f px, a line is %.0f px)" % (where, boxes["messageHeight"], boxes["line"]))
    check(boxes["role"] == "status" and "no HTTP interactions" in boxes["text"],
          "%s: that line, in the status region, says the store has no HTTP interactions (%s)" % (where, boxes["text"]))
    audit(driver, where + ": Interactions of a gRPC-only store")


def keyboard_checks(driver, base, where):
    """From a page just loaded, Tab to the first call's link, Enter opens it, the link back
    returns to the list with the focus on that call again."""
    driver.get(base + "#/interactions")
    wait(driver, "the gRPC calls", lambda d: len(calls(d)) == args.calls)
    for presses in range(1, 40):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        active = driver.switch_to.active_element
        if active.find_elements(By.XPATH, "ancestor::table[@id='grpc-calls']"):
            break
    else:
        fail("%s: Tab never reached a gRPC call" % where)
    opened = active.find_element(By.XPATH, "ancestor::tr").get_attribute("data-id")
    check(True, "%s: Tab reaches the first gRPC call after %d presses" % (where, presses))
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait(driver, "the call opened with Enter", lambda d: "#/conversation?id=" + opened in d.current_url and d.find_elements(By.ID, "conversation-end"))
    driver.find_element(By.ID, "back").send_keys(Keys.ENTER)
    wait(driver, "the list again", lambda d: d.current_url.endswith("#/interactions") and len(calls(d)) == args.calls)
    wait(driver, "the focus on the opened call", lambda d: d.switch_to.active_element.find_elements(By.XPATH, "ancestor::tr[@data-id='%s']" % opened))
    check(True, "%s: Enter opens the call, and back in the list the focus is on it again" % where)


def one_line(driver, element_id):
    """The element's height over its line's: 1.0 for one line."""
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]); const s = getComputedStyle(e);"
        "return e.getBoundingClientRect().height / (parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.4)", element_id)


def shown(driver, element_id):
    return driver.execute_script("const e = document.getElementById(arguments[0]); return !!e && e.getClientRects().length > 0", element_id)


def view(driver, base, name, ready):
    driver.get(base + "#/" + name)
    return wait(driver, "the %s view" % name, ready)


def cassettes_checks(driver, base, where):
    view(driver, base, "cassettes", lambda d: d.find_elements(By.CSS_SELECTOR, "#cassettes tbody tr"))
    headings = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#cassettes thead th")]
    cells = [td.text for td in driver.find_elements(By.CSS_SELECTOR, "#cassettes tbody tr")[0].find_elements(By.TAG_NAME, "td")]
    row = dict(zip(headings, cells))
    check(row.get("gRPC calls") == str(args.calls) and row.get("Last recorded") and "WebSocket conversations" not in row,
          "%s: the cassette counts its %d gRPC calls and says when it last recorded (%s)" % (where, args.calls, row))
    # The calls' messages are what the cassette stores; a call keeps no host, the cassette its upstream.
    check(row.get("Size") not in (None, "", "0 B") and row.get("Interactions") == "0",
          "%s: the cassette's size is its calls' messages, not 0 B (%s)" % (where, row))
    check((row.get("Hosts") or "").startswith("recorded from http://127.0.0.1:"),
          "%s: the cassette names the upstream it was recorded from (%s)" % (where, row))
    # The replaying proxy has served no call yet: every method is unused. A store's report cannot
    # know (no replay was tracked) and says why, in a note the cell is described by.
    expected = "%d gRPC methods" % args.calls if where == "proxy" else "unknown"
    check(row.get("Unused") == expected, "%s: Unused is %s (%s)" % (where, expected, row))
    if where != "proxy":
        cell = driver.find_elements(By.CSS_SELECTOR, "#cassettes tbody tr")[0].find_elements(By.TAG_NAME, "td")[-1]
        note = driver.find_element(By.ID, "unused-unknown")
        check(cell.get_attribute("aria-describedby") == "unused-unknown" and "--track-usage" in note.text,
              "%s: the unknown Unused is explained by a note naming --track-usage (%s)" % (where, note.text))
    audit(driver, where + ": Cassettes of a gRPC-only store")


def live_checks(driver, base, where):
    view(driver, base, "live", lambda d: "following" in d.find_element(By.ID, "live-status").text)
    check(not shown(driver, "live") and "no requests yet" in driver.find_element(By.ID, "live-count").text and one_line(driver, "live-count") <= 1.5,
          "%s: Live before any request says so in one line (%s), without an empty table" % (where, driver.find_element(By.ID, "live-count").text))
    audit(driver, where + ": Live before any request")
    # A call of the grpcio client (the peer that recorded the store), replayed while the page is open.
    target = urllib.parse.urlsplit(base).netloc
    client = subprocess.run(["python3", PEER, "client", target, "get"], capture_output=True, text=True, timeout=120)
    check(client.returncode == 0 and '"code": "OK"' in client.stdout, "%s: the grpcio client's call is replayed (%s%s)" % (where, client.stdout.strip(), client.stderr[-300:]))
    row = wait(driver, "the call's live row", lambda d: d.find_elements(By.CSS_SELECTOR, "#live tbody tr"))[0]
    check(shown(driver, "live") and "/shop.v1.Catalog/GetItem" in row.text and "gRPC OK" in row.text and "1 request" in driver.find_element(By.ID, "live-count").text,
          "%s: the call shows in the Live table, which appears with it (%s)" % (where, row.text))
    audit(driver, where + ": Live with a gRPC call")


def sessions_checks(driver, base, where, proxy=None):
    view(driver, base, "sessions", lambda d: d.find_elements(By.ID, "sessions-none"))
    check(one_line(driver, "sessions-none") <= 1.5, "%s: Sessions without any says so in one line" % where)
    audit(driver, where + ": Sessions of a gRPC-only store")
    if not proxy:
        return
    # A session a test opened that served nothing yet: its journal is a line, not headings only.
    request = urllib.request.Request(proxy + "/__cassette/sessions", data=b'{"cassette": "dev"}', headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        session = json.loads(response.read())["id"]
    driver.refresh()
    journal = wait(driver, "the session's journal", lambda d: d.find_elements(By.ID, "journal-" + session))[0]
    check(journal.tag_name == "p" and journal.text == "no requests yet" and one_line(driver, "journal-" + session) <= 1.5,
          "%s: a session that served nothing says so in one line in its journal (%s)" % (where, journal.text))
    # None of the cassette's gRPC methods was called in it: all of them are unused.
    headings = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#sessions thead th")]
    cells = [td.text for td in driver.find_element(By.XPATH, "//table[@id='sessions']//tr[td[1]/a[text()='%s']]" % session).find_elements(By.TAG_NAME, "td")]
    unused = dict(zip(headings, cells)).get("Unused")
    check(unused == "%d gRPC methods" % args.calls, "%s: the session counts its %d unused gRPC methods (%s)" % (where, args.calls, unused))
    listed = [li.get_attribute("textContent") for li in driver.find_elements(By.CSS_SELECTOR, "#session-%s details.unused li" % session)]
    check(len(listed) == args.calls and all(path.startswith("/shop.v1.Catalog/") for path in listed),
          "%s: and names them (%s)" % (where, listed))
    audit(driver, where + ": Sessions with a session that served nothing")


def drift_checks(driver, base, where, fixtures):
    view(driver, base, "drift", lambda d: d.find_elements(By.ID, "audit-summary"))
    summary = driver.find_element(By.ID, "audit-summary").text
    check(summary == "No findings in %d conversations and gRPC calls" % args.calls and one_line(driver, "audit-summary") <= 1.5 and not shown(driver, "audit"),
          "%s: the audit without findings is one line naming what it read (%s), without an empty table" % (where, summary))
    if fixtures:
        methods = len(driver.find_elements(By.CSS_SELECTOR, "#drift tr.endpoint"))
        text = driver.find_element(By.ID, "drift-summary").text
        check(methods > 0 and ("compared with %d endpoints: 0 errors, 0 warnings, 0 notes" % methods) in text,
              "%s: the drift's summary counts the %d methods it compared (%s)" % (where, methods, text))
        # One call of each method, however many messages its stream held (ListItems 2, Chat 4).
        counts = {row.find_elements(By.TAG_NAME, "td")[0].text: row.find_elements(By.TAG_NAME, "td")[2].text
                  for row in driver.find_elements(By.CSS_SELECTOR, "#drift tr.endpoint")}
        check(set(counts.values()) == {"1"}, "%s: each method's Recordings are its calls, one each (%s)" % (where, counts))
    audit(driver, where + ": Drift of a gRPC-only store")


driver = browser(console_log=True, size=(WIDTH, HEIGHT))
try:
    # The viewport itself, whatever room the window's frame takes.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    interactions_checks(driver, args.ui, "proxy")
    keyboard_checks(driver, args.ui, "proxy")
    cassettes_checks(driver, args.ui, "proxy")
    live_checks(driver, args.ui, "proxy")
    sessions_checks(driver, args.ui, "proxy", proxy=urllib.parse.urlunsplit(urllib.parse.urlsplit(args.ui)[:2] + ("", "", "")))
    drift_checks(driver, args.ui, "proxy", fixtures=False)

    driver.set_network_conditions(offline=True, latency=0, download_throughput=0, upload_throughput=0)
    report = "file://" + os.path.abspath(args.report)
    interactions_checks(driver, report, "report")
    keyboard_checks(driver, report, "report")
    cassettes_checks(driver, report, "report")
    sessions_checks(driver, report, "report")
    drift_checks(driver, report, "report", fixtures=True)
    errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE" and "Content Security Policy" in entry.get("message", "")]
    check(not errors, "no CSP violations (%s)" % errors[:1])
finally:
    driver.quit()
print("ok: all gRPC-only checks passed", flush=True)
