"""The packet in a real (headless) Chromium: click labels, reload, download the sheet, import it."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.review.packets import export_packets
from evalset_pipeline.core.review.sheets import import_sheet
from evalset_pipeline.core.review.store import ReviewStore
from evalset_pipeline_tests.core.review.review_synth import HOSTILE_Q, publish_small_golden

CAPTURE = """
window.__csv = null;
const B = window.Blob;
window.Blob = function(parts, opts) { window.__csv = parts.join(''); return new B(parts, opts); };
URL.createObjectURL = function() { return 'about:blank'; };
HTMLAnchorElement.prototype.click = function() {};
document.getElementById('download').click();
return window.__csv;
"""


@pytest.fixture
def browser(chromium):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,900",
    ):
        opts.add_argument(arg)
    opts.binary_location = chromium.binary
    driver = webdriver.Chrome(service=Service(chromium.driver), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def test_click_reload_download_import(tmp_path, browser):
    from selenium.webdriver.common.by import By

    data = tmp_path / "data"
    data.mkdir()
    golden = publish_small_golden(data, n_items=3, hostile=True)
    export_packets(golden, tmp_path / "pk", sample=3, overlap=0.0, slots=("A",), seed=1)
    browser.get((tmp_path / "pk" / "packet_A.html").as_uri())
    assert browser.execute_script("return document.querySelectorAll('article').length") == 3
    assert HOSTILE_Q in browser.find_element(By.TAG_NAME, "main").text  # shown as text, not run
    assert browser.execute_script("return window.__xss === undefined")
    cands = browser.find_elements(By.CSS_SELECTOR, ".cand")
    cands[0].find_element(By.CSS_SELECTOR, "label.supporting").click()
    cands[1].find_element(By.CSS_SELECTOR, "label.irrelevant").click()
    cands[1].find_element(By.CSS_SELECTOR, "input.note").send_keys('odd, "quoted" note')
    assert browser.find_element(By.ID, "done").text == "2"

    browser.refresh()  # choices survive a reload (localStorage)
    assert browser.find_element(By.ID, "done").text == "2"
    checked = browser.execute_script(
        "return [...document.querySelectorAll('input[type=radio]:checked')].map(r => r.value)"
    )
    assert checked == ["supporting", "irrelevant"]

    csv_text = browser.execute_script(CAPTURE)
    sheet = tmp_path / "downloaded.csv"
    sheet.write_text(csv_text, encoding="utf-8")
    result = import_sheet(DataPaths(data), sheet, "alice")
    assert result.labelled == 2 and result.blank == len(cands) - 2
    reviews = ReviewStore(DataPaths(data)).reviews()
    labels = sorted((r.label, r.by_annotator["alice"]["note"]) for r in reviews.values())
    assert labels == [("irrelevant", 'odd, "quoted" note'), ("supporting", "")]


def test_zoom_opens_and_closes(tmp_path, browser):
    from selenium.webdriver.common.by import By

    data = tmp_path / "data"
    data.mkdir()
    golden = publish_small_golden(data, n_items=2)
    export_packets(golden, tmp_path / "pk", sample=2, overlap=0.0, slots=("A",), seed=1)
    browser.get((tmp_path / "pk" / "packet_A.html").as_uri())
    browser.find_elements(By.CSS_SELECTOR, "a.img")[0].click()
    zoom = browser.find_element(By.ID, "zoom")
    assert "on" in zoom.get_attribute("class") and zoom.find_element(
        By.TAG_NAME, "img"
    ).get_attribute("src")
    zoom.click()
    assert "on" not in zoom.get_attribute("class")
    assert Path(
        browser.execute_script("return document.images[0].src").replace("file://", "")
    ).is_file()


def test_embedded_images_show(tmp_path, browser):
    data = tmp_path / "data"
    data.mkdir()
    golden = publish_small_golden(data, n_items=2)
    export_packets(golden, tmp_path / "pk", sample=2, overlap=0.0, slots=("A",), seed=1, embed=True)
    page = (tmp_path / "pk" / "packet_A.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == len(
        {u for u in golden.units.column("unit_id").to_pylist() if u in page}
    )  # each image once
    browser.get((tmp_path / "pk" / "packet_A.html").as_uri())
    state = browser.execute_script(
        "return [...document.images].filter(i => i.dataset.img).map(i => [i.src.slice(0, 22), i.complete])"
    )
    assert state and all(src == "data:image/png;base64," for src, _ in state)
