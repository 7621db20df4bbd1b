"""What the web UI's browser scripts share: headless Chromium from Debian (chromium +
chromium-driver, driven by the PyPI selenium package; scripts/ensure-browser.sh installs them),
the `ok:` / `FAILED:` lines the Swift tests read, and waiting for the page with a patience that
suits a busy machine. Imported by ui_browser_test.py and ui_list_test.py, which sit beside it."""
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


def browser(console_log=False):
    """Headless Debian Chromium in a 1280x900 window; `console_log` keeps the page's console
    (CSP violations show there) for `driver.get_log("browser")`."""
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"]:
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
