"""Benchmark: the web app's pages in a real browser (issue 21's targets).

    flock /tmp/cpmodel-bench.lock python benchmarks/web_pages.py [--quick]

Starts ``python -m cpmodel serve``, drives headless Chromium (Debian's
chromium and chromedriver, through selenium) and measures:

1. each page's time to interactive (DOMContentLoaded, the page's scripts run),
   target < 1 s, several loads each;
2. the first 5×6 rectangle after Solve (the page's own clock, from the click
   to the first rectangle drawn), target < 1 s, several solves;
3. a whole solo Bananagrams game through the 144-tile bag, played by clicking
   (the solver's layout, then Peel, until Bananas), every layout checked with
   the validator against every tile held: peels, seconds, the slowest step
   (``--quick``: the 60-tile bag).

Rich table, and JSON in benchmarks/results/web_pages[.quick].json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PAGES = ("/", "/rect", "/grid", "/banana", "/wordscapes", "/learn")


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def until(driver, condition, seconds: float = 60):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.02).until(condition)


def state(driver) -> str:
    return driver.execute_script("return document.body.dataset.state")


def page_times(driver, url: str, loads: int) -> dict:
    times = {}
    for path in PAGES:
        samples = []
        for _ in range(loads):
            driver.get(url + path)
            until(driver, lambda d: state(d) == "idle", 10)
            samples.append(driver.execute_script(
                "return performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd;"))
        times[path] = {"median_ms": round(statistics.median(samples)), "max_ms": round(max(samples))}
    return times


def first_rectangles(driver, url: str, solves: int) -> list[int]:
    samples = []
    for _ in range(solves):
        driver.get(url + "/rect")
        until(driver, lambda d: state(d) == "idle", 10)
        driver.find_element("css selector", "#solve").click()
        until(driver, lambda d: d.execute_script("return document.body.dataset.firstMs"), 20)
        samples.append(int(driver.execute_script("return document.body.dataset.firstMs")))
        driver.find_element("css selector", "#stop").click()
        until(driver, lambda d: state(d) == "done", 20)
    return samples


def solo_game(driver, url: str, bag: int) -> dict:
    from selenium.webdriver.support.ui import Select

    from cpmodel.core.lexicon import load_default
    from cpmodel.core.validate import banana_problems

    words = frozenset(load_default().words)
    driver.get(url + "/banana")
    until(driver, lambda d: state(d) == "idle", 10)
    select = Select(driver.find_element("css selector", "#bag"))
    if str(bag) not in [o.get_attribute("value") for o in select.options]:
        driver.execute_script("const o = document.createElement('option'); o.value = o.textContent = arguments[0];"
                              "document.querySelector('#bag').append(o);", str(bag))
    select.select_by_value(str(bag))
    driver.find_element("css selector", "#new-game").click()
    until(driver, lambda d: d.execute_script("return document.body.dataset.rack") == "21", 10)
    began, steps, invalid = time.monotonic(), [], 0
    while driver.execute_script("return document.body.dataset.finished") != "1" and len(steps) < 200:
        step = time.monotonic()
        for button in ("#solve-layout", "#peel"):
            driver.find_element("css selector", button).click()
            until(driver, lambda d: state(d) in ("idle", "error"), 120)
            if button == "#solve-layout":
                cells = {(r, c): t for r, c, t in driver.execute_script(
                    "return [...document.querySelectorAll('#tiles .cell.tile')].map(c => [+c.dataset.r, +c.dataset.c, c.textContent]);")}
                rack = "".join(b.text.lower() for b in driver.find_elements("css selector", "#rack button.tile"))
                invalid += bool(rack) or bool(banana_problems(cells, "".join(cells.values()) + rack, words))
        steps.append(time.monotonic() - step)
    message = driver.find_element("css selector", "#message").text
    return {"bag": bag, "finished": "Bananas!" in message, "peels": len(steps) - 1, "invalid_layouts": invalid,
            "seconds": round(time.monotonic() - began, 1), "median_step_s": round(statistics.median(steps), 2),
            "slowest_step_s": round(max(steps), 2)}


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    from cpmodel.web.launch import launch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer loads and solves, a 60-tile game")
    args = parser.parse_args()
    loads, solves, bag = (2, 3, 60) if args.quick else (5, 5, 144)
    server = launch("--jobs", "2")
    driver = browser()
    try:
        import httpx

        while not httpx.get(server.url + "/api/status").json()["warm"]:
            time.sleep(0.1)
        report = {"pages": page_times(driver, server.url, loads), "first_5x6_ms": first_rectangles(driver, server.url, solves),
                  "game": solo_game(driver, server.url, bag)}
    finally:
        driver.quit()
        code, seconds = server.stop()
    report.update(sigterm_exit_code=code, stop_seconds=round(seconds, 2), processes_left=len(server.leftovers()),
                  load_average=os.getloadavg()[0], cores=os.cpu_count())
    console = Console()
    table = Table(title="web pages: time to interactive (target < 1 s)")
    for column in ("page", "median ms", "max ms"):
        table.add_column(column)
    for path, row in report["pages"].items():
        table.add_row(path, str(row["median_ms"]), str(row["max_ms"]))
    console.print(table)
    first = report["first_5x6_ms"]
    console.print(f"first 5x6 after Solve: median {statistics.median(first)} ms, max {max(first)} ms (target < 1000)")
    game = report["game"]
    console.print(f"solo game, {game['bag']}-tile bag: finished {game['finished']} · {game['peels']} peels · "
                  f"{game['invalid_layouts']} invalid layouts · {game['seconds']} s · step median "
                  f"{game['median_step_s']} s, slowest {game['slowest_step_s']} s")
    console.print(f"SIGTERM: exit {code} in {report['stop_seconds']} s, {report['processes_left']} processes left · "
                  f"load {report['load_average']:.2f}")
    out = Path(__file__).parent / "results" / f"web_pages{'.quick' if args.quick else ''}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    console.print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
