"""TLS over a pinned address: the connection goes to the checked IP, yet SNI and the certificate check use the name.

A throwaway CA signs a certificate for `secure.test` only; the sealed network serves it from 127.0.0.1
standing in for a public address. Fetching `secure.test` succeeds, and fetching another name that
resolves to the same address fails the certificate check.
"""

from __future__ import annotations

import datetime
import ssl

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from program.base.errors import IngestError
from program.retrieval.fetch import fetch_page
from tests.reliability.network import PUBLIC, Resolver, sealed_network
from tests.reliability.test_urls import online


def issue(tmp_path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context for `secure.test`, client context trusting only the throwaway CA)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True).sign(ca_key, hashes.SHA256()))
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "secure.test")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(2).not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("secure.test")]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    client = ssl.create_default_context(cadata=ca.public_bytes(serialization.Encoding.PEM).decode())
    return server, client


@pytest.fixture
def tls(tmp_path):
    server, client = issue(tmp_path)
    server.sni_seen = []
    server.sni_callback = lambda sock, name, context: server.sni_seen.append(name)
    return server, client


def test_the_pinned_connection_still_verifies_the_name(tls, tmp_path, monkeypatch):
    server, client = tls
    with sealed_network(monkeypatch, tls=server) as network:
        http = httpx.Client(verify=client)  # fetch_page closes it
        page = fetch_page("https://secure.test/page", online(tmp_path), http=http, resolve=Resolver())
    assert page.text == "page /page for secure.test"
    assert server.sni_seen == ["secure.test"] and network.connects == [(PUBLIC, 443)] and network.lookups == []


def test_another_name_on_the_same_address_fails_the_certificate_check(tls, tmp_path, monkeypatch):
    server, client = tls
    with sealed_network(monkeypatch, tls=server) as network:
        http = httpx.Client(verify=client)  # fetch_page closes it
        with pytest.raises(IngestError, match="CERTIFICATE_VERIFY_FAILED"):
            fetch_page("https://other.test/page", online(tmp_path), http=http, resolve=Resolver())
    assert server.sni_seen == ["other.test"] and network.paths == []
