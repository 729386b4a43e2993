"""program/retrieval/fetch.py: the URL guard, and fetching through a mocked transport."""

from __future__ import annotations

import httpx
import pytest

from program.base.errors import IngestError
from program.base.settings import Settings
from program.retrieval.fetch import check_url, fetch_page

PUBLIC = {"docs.example.com": ["93.184.216.34"], "evil.example.com": ["93.184.216.34", "10.0.0.7"],
          "rebind.example.com": ["169.254.169.254"]}
PAGE = ("<html><head><title>Widget guide</title></head><body><nav>Home | About</nav><article><h1>Widgets</h1>"
        "<p>A widget turns gears into sprockets, and every widget ships with a calibration card.</p><h2>Install</h2>"
        "<p>Install the widget by bolting it to the frame, then tighten the four corner screws.</p>"
        "<pre><code>widget --calibrate</code></pre></article><footer>© Widgets Inc</footer></body></html>")


def resolve(host: str) -> list[str]:
    if host not in PUBLIC:
        raise OSError("unknown host")
    return PUBLIC[host]


def online(tmp_path, **overrides) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path, web_backend="tavily", tavily_api_key="tvly-test", **overrides)


@pytest.mark.parametrize("url", [
    "ftp://docs.example.com/a", "file:///etc/passwd", "docs.example.com/a", "http:///nohost",
    "http://localhost:8000/", "http://api.localhost/", "http://127.0.0.1/", "http://10.1.2.3/", "http://192.168.0.1/",
    "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/",
    "http://100.64.0.1/", "http://224.0.0.1/", "http://evil.example.com/", "http://rebind.example.com/",
    "http://nowhere.example.com/",
])
def test_only_public_http_urls_pass(url):
    with pytest.raises(IngestError):
        check_url(url, resolve)


def test_an_allowed_internal_host_passes_by_name_or_host_port_and_nothing_else_does():
    assert check_url("http://127.0.0.1:8000/docs/", resolve, ["127.0.0.1"]) == ["127.0.0.1"]
    check_url("http://localhost:8000/docs/", None, ["localhost:8000"])
    for url, allowed in [("http://127.0.0.1:8001/", ["127.0.0.1:8000"]), ("http://10.1.2.3/", ["127.0.0.1"]),
                         ("ftp://127.0.0.1/", ["127.0.0.1"])]:
        with pytest.raises(IngestError):
            check_url(url, resolve, allowed)
    assert Settings(_env_file=None).fetch_allow_hosts == []


def test_a_public_url_passes():
    check_url("https://docs.example.com/widgets", resolve)
    check_url("http://93.184.216.34/", resolve)


def serve(routes: dict[str, httpx.Response]) -> httpx.Client:
    """A client whose transport answers `routes`, keyed by the URL as asked (the Host header names the host).

    A request that was not sent to an address `resolve` gave for its host gets a 421."""
    def handler(request: httpx.Request) -> httpx.Response:
        host = request.headers["host"]
        if request.url.host not in PUBLIC.get(host, [host]):
            return httpx.Response(421)
        return routes.get(f"{request.url.scheme}://{host}{request.url.raw_path.decode()}", httpx.Response(404))

    return httpx.Client(transport=httpx.MockTransport(handler), follow_redirects=False)


def html(body: str = PAGE) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/html; charset=utf-8"}, text=body)


def test_a_redirect_is_followed_and_the_page_keeps_its_final_url(tmp_path):
    moved = httpx.Response(301, headers={"location": "/guide"})
    http = serve({"https://docs.example.com/old": moved, "https://docs.example.com/guide": html()})
    page = fetch_page("https://docs.example.com/old", online(tmp_path), http=http, resolve=resolve)
    assert (page.url, page.content_type, page.text) == ("https://docs.example.com/guide", "text/html", PAGE)


@pytest.mark.parametrize("charset", ["rot13", "no-such-charset", "base64"])
def test_a_page_whose_charset_is_no_text_encoding_is_read_as_utf8(tmp_path, charset):
    # served as charset=rot13, a page had failed the whole ingest with a LookupError
    odd = httpx.Response(200, headers={"content-type": f"text/html; charset={charset}"}, content=PAGE.encode())
    page = fetch_page("https://docs.example.com/p", online(tmp_path), http=serve({"https://docs.example.com/p": odd}),
                      resolve=resolve)
    assert page.text == PAGE


def test_a_redirect_to_a_private_address_is_refused(tmp_path):
    http = serve({"https://docs.example.com/go": httpx.Response(302, headers={"location": "http://169.254.169.254/"})})
    with pytest.raises(IngestError, match="169.254.169.254"):
        fetch_page("https://docs.example.com/go", online(tmp_path), http=http, resolve=resolve)


@pytest.mark.parametrize("response, message", [
    (httpx.Response(200, headers={"content-type": "application/pdf"}, content=b"%PDF"), "only HTML"),
    (httpx.Response(500), "HTTP 500"),
    (html("<p>" + "x" * 5000 + "</p>"), "larger than"),
])
def test_unusable_pages_are_refused(tmp_path, response, message):
    http = serve({"https://docs.example.com/a": response})
    with pytest.raises(IngestError, match=message):
        fetch_page("https://docs.example.com/a", online(tmp_path, ingest_max_bytes=4096), http=http, resolve=resolve)


def test_offline_a_url_is_refused_and_nothing_is_fetched(tmp_path):
    offline = Settings(_env_file=None, data_dir=tmp_path, web_backend="offline")
    http = serve({})
    with pytest.raises(IngestError, match="online web backend"):
        fetch_page("https://docs.example.com/a", offline, http=http, resolve=resolve)
    with pytest.raises(IngestError, match="local"):  # a bad URL is named as such, whatever the backend
        fetch_page("http://127.0.0.1/", offline, http=http, resolve=resolve)
