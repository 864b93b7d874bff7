"""Checks /app/status_report.csv and /app/top404.txt."""


def lines(path: str) -> list[str]:
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def test_status_header():
    assert lines("/app/status_report.csv")[0] == "class,requests,bytes"


def test_status_classes_in_order():
    assert [line.split(",")[0] for line in lines("/app/status_report.csv")] == [
        line.split(",")[0] for line in lines("/tests/expected_status.csv")
    ]


def test_status_requests():
    got = {line.split(",")[0]: line.split(",")[1] for line in lines("/app/status_report.csv")[1:]}
    want = {line.split(",")[0]: line.split(",")[1] for line in lines("/tests/expected_status.csv")[1:]}
    assert got == want


def test_status_bytes():
    assert lines("/app/status_report.csv") == lines("/tests/expected_status.csv")


def test_top404():
    assert lines("/app/top404.txt") == lines("/tests/expected_top404.txt")
