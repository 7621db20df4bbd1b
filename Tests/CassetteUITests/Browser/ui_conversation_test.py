#!/usr/bin/env python3
"""A recorded WebSocket conversation in the web UI, in headless Chromium (Debian's chromium +
chromium-driver, PyPI selenium): listed below the interactions, then its timeline (direction,
offset, kind, size, payload as a JSON tree, text or hex, how it ended) on a real `cassette replay`
and in a `cassette report` opened from file:// with the network off. A payload holding <script>
and <img onerror> is shown as text and never runs. Started by CassetteUITests/BrowserTests.swift;
prints `ok: ...` lines and exits 1 with `FAILED: ...` on the first check that does not hold."""
import argparse
import os
import re
import sys
import time

from selenium.webdriver.common.by import By

# The shared module sits beside this script; importing it must not leave __pycache__ in the work tree.
sys.dont_write_bytecode = True
from browser_support import browser, check
from browser_support import wait as wait_for

parser = argparse.ArgumentParser()
parser.add_argument("--ui", required=True, help="the proxy's page: http://127.0.0.1:PORT/__cassette/ui/")
parser.add_argument("--report", required=True, help="the HTML report of the same store")
parser.add_argument("--screenshots", help="directory for the PNGs; none are taken without it")
args = parser.parse_args()
PATIENCE = 20
MARKUP = '<script>window.__pwned = 3</script><img src="x" onerror="window.__pwned = 4">'


def wait(driver, what, predicate):
    return wait_for(driver, what, predicate, PATIENCE)


def timeline_checks(driver, where):
    messages = wait(driver, "the timeline", lambda d: d.find_elements(By.CSS_SELECTOR, "#timeline li.message:not(.end)"))
    heads = [m.find_element(By.CSS_SELECTOR, ".message-head").text for m in messages]
    check(heads[0].startswith("+") and "server → client" in heads[0] and "text" in heads[0],
          "%s: the first message is the server's text, with its offset (%s)" % (where, heads[0]))
    offsets = [float(re.match(r"\+([0-9.]+) ms", h).group(1)) for h in heads]
    check(offsets == sorted(offsets), "%s: the %d messages are in order of their offsets" % (where, len(messages)))
    check(messages[0].find_elements(By.CSS_SELECTOR, ".json-key"), "%s: a JSON payload is shown as a tree" % where)
    markup = [m for m in messages if MARKUP in m.text]
    check(len(markup) >= 1 and "client → server" in markup[0].text and "%d bytes" % len(MARKUP.encode()) in markup[0].text,
          "%s: the client's <script> payload is shown as text, with its size" % where)
    time.sleep(0.5)
    check(driver.execute_script("return window.__pwned === undefined") and not driver.find_elements(By.CSS_SELECTOR, "#timeline img"),
          "%s: the <script> and <img onerror> payload does not run" % where)
    binary = [m for m in messages if "binary" in m.find_element(By.CSS_SELECTOR, ".message-head").text]
    check(binary and "00 01 02 fe ff" in binary[0].find_element(By.CSS_SELECTOR, "pre.hex").text,
          "%s: a binary payload is shown as hex" % where)
    end = driver.find_element(By.ID, "conversation-end").text
    check("closed" in end and "4000" in end and "server says bye" in end and "server" in end,
          "%s: the end says who closed, the code and the reason (%s)" % (where, end))


driver = browser(console_log=True)
try:
    driver.get(args.ui + "#/interactions")
    row = wait(driver, "the conversations below the list", lambda d: d.find_elements(By.CSS_SELECTOR, "#conversations tbody tr"))[0]
    check("/chat" in row.text and "server closed 4000" in row.text, "the list shows the recorded conversation and how it ended (%s)" % row.text)
    # The store holds no HTTP interactions: their list is its one status line, and the conversation
    # is in view without a scroll, not under an empty table a screen tall.
    place = driver.execute_script(
        "return [document.getElementById('scroller').getClientRects().length, arguments[0].getBoundingClientRect().bottom, window.innerHeight]", row)
    check(place[0] == 0 and place[1] <= place[2],
          "the empty list draws no table and the conversation is in view (its row ends at %.0f px of %d)" % (place[1], place[2]))
    conversation = row.get_attribute("data-id")
    row.click()
    wait(driver, "the conversation's URL", lambda d: "#/conversation?id=" + conversation in d.current_url)
    timeline_checks(driver, "on the proxy")
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
        driver.save_screenshot(os.path.join(args.screenshots, "conversation.png"))

    driver.set_network_conditions(offline=True, latency=0, download_throughput=0, upload_throughput=0)
    report = "file://" + os.path.abspath(args.report)
    driver.get(report + "#/interactions")
    wait(driver, "the report's conversations", lambda d: d.find_elements(By.CSS_SELECTOR, "#conversations tbody tr"))
    driver.get(report + "#/conversation?id=" + conversation)
    timeline_checks(driver, "in the report opened offline")
    errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE" and "Content Security Policy" in entry.get("message", "")]
    check(not errors, "no CSP violations (%s)" % errors[:1])
finally:
    driver.quit()
print("ok: all conversation checks passed", flush=True)
