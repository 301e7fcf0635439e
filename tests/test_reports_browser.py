"""The reports in a real browser: Debian's headless Chromium, driven by selenium, opens each report
from a file:// address with the network cut off and checks that every chart drew (each plotly div
holds its svg and its traces), that the page loaded nothing from elsewhere and that the browser
logged no error.

Skipped, with the reason, where selenium, /usr/bin/chromium or /usr/bin/chromedriver is missing
(`.ci/run` installs the two Debian packages when it runs as root).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ruleslang.cli.app import main
from ruleslang.reports.compare import render_compare

NO_SELENIUM = "selenium is not installed (pip install '.[test]')"
webdriver = pytest.importorskip("selenium.webdriver", reason=NO_SELENIUM)
Service = pytest.importorskip("selenium.webdriver.chrome.service", reason=NO_SELENIUM).Service
WebDriverWait = pytest.importorskip("selenium.webdriver.support.ui", reason=NO_SELENIUM).WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "cases" / "compare" / "report.json"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
# plotly draws when the page's scripts run; a loaded machine may take a while
DRAW_SECONDS = 60

DRAWN = """
const plots = Array.from(document.querySelectorAll('.plotly-graph-div'));
return plots.map(p => ({
    id: p.id,
    svg: p.querySelectorAll('svg.main-svg').length,
    traces: p.querySelectorAll('.cartesianlayer .trace').length,
    points: p.querySelectorAll('.cartesianlayer .trace path, .cartesianlayer .trace .point').length,
}));
"""
# resources the page fetched (nothing but the file itself is expected)
FETCHED = "return performance.getEntriesByType('resource').map(e => e.name);"


@pytest.fixture(scope="module")
def browser():
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not Path(path).is_file()]
    if missing:
        pytest.skip(f"no headless browser to test in: {', '.join(missing)} missing "
                    "(apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1300,1000",
                # no network: a report that needed one would fail to draw here
                "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # the driver's path is given, so selenium-manager never looks for (or downloads) one
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def _open_and_check(driver, path: Path, charts: int) -> list[dict]:
    driver.get(path.as_uri())
    WebDriverWait(driver, DRAW_SECONDS).until(
        lambda d: (found := d.execute_script(DRAWN)) and all(p["svg"] and p["traces"] for p in found))
    drawn = driver.execute_script(DRAWN)
    assert len(drawn) == charts
    for plot in drawn:
        assert plot["svg"] >= 1 and plot["traces"] >= 1 and plot["points"] >= 1, plot
    assert [url for url in driver.execute_script(FETCHED) if not url.startswith("file:")] == []
    errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    return drawn


def test_every_chart_of_the_compare_report_draws(browser, tmp_path):
    page = tmp_path / "compare.html"
    page.write_text(render_compare(json.loads(FIXTURE.read_text(encoding="utf-8"))), encoding="utf-8")
    _open_and_check(browser, page, charts=8)
    # the explanation stands beside its chart, not under it
    beside = browser.execute_script("""
        return Array.from(document.querySelectorAll('.chart')).map(c => {
            const [figure, aside] = c.children;
            return aside.getBoundingClientRect().left >= figure.getBoundingClientRect().right; });""")
    assert beside and all(beside)


def test_every_chart_of_the_odds_report_draws(browser, tmp_path):
    page = tmp_path / "odds.html"
    assert main(["odds", "--ruleset", "aar/base@1", "--at", "Karelia S.S.R.", "--attacker", "Germans",
                 "2 infantry, 1 armour, 1 fighter", "--float", "-o", str(page)]) == 0
    _open_and_check(browser, page, charts=4)


def test_the_replay_page_draws_the_board_and_its_slider_changes_the_round(browser, tmp_path):
    log, page = tmp_path / "game.jsonl", tmp_path / "game.html"
    assert main(["play", "--ruleset", "aar/base@1", "--seed", "2", "--rounds", "2", "--agent", "random",
                 "--log", str(log)]) == 0
    assert main(["replay", str(log), "--html", str(page)]) == 0
    browser.get(page.as_uri())
    shown = """return Array.from(document.querySelectorAll('.frame')).filter(f => !f.hidden).map(f => {
        const svg = f.querySelector('svg').getBoundingClientRect();
        return {id: f.id, width: svg.width, height: svg.height, spaces: f.querySelectorAll('g.space').length,
                label: document.getElementById('round-label').textContent}; });"""
    WebDriverWait(browser, DRAW_SECONDS).until(lambda d: d.execute_script(shown))
    [last] = browser.execute_script(shown)
    assert last["id"] == "frame-2" and last["label"] == "round 2"
    assert last["width"] > 300 and last["height"] > 200 and last["spaces"] > 100
    # the board is drawn by the map's positions: the footer says so, and west is left of east
    assert "by the spaces' positions on the map" in browser.find_element("css selector", "footer").text
    drawn_x = browser.execute_script("""return Object.fromEntries(Array.from(document.querySelectorAll(
        '#frame-2 g.space')).map(g => [g.querySelector('title').textContent.split('\\n')[0],
        g.querySelector('circle').getBoundingClientRect().x]));""")
    assert drawn_x["Western Europe"] < drawn_x["Germany"] < drawn_x["West Russia"] < drawn_x["Russia"]
    # the slider moved to the start shows the start, and only it
    browser.execute_script("const s = document.getElementById('round'); s.value = 0; "
                           "s.dispatchEvent(new Event('input'));")
    [first] = browser.execute_script(shown)
    assert first["id"] == "frame-0" and first["label"] == "start" and first["width"] > 300
    assert browser.find_element("css selector", "#frame-0 aside").text.startswith("start")
    assert [url for url in browser.execute_script(FETCHED) if not url.startswith("file:")] == []
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
