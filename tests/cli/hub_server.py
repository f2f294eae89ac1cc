#!/usr/bin/env python3
"""A local stand-in for the Hugging Face Hub's file endpoint, for tests/cli/hub.sh.

Usage: hub_server.py ROOT PORT_FILE

Serves GET /{owner}/{name}/resolve/{revision}/{file} from ROOT/{owner}/{name}/{file} with the
headers the Hub sends (X-Repo-Commit, ETag; X-Error-Code on failures: RepoNotFound,
RevisionNotFound, EntryNotFound, GatedRepo). Repos under gated-org/ answer 401 GatedRepo unless
the request carries "Authorization: Bearer good-token". The revision must be main or the repo's
commit. Binds 127.0.0.1 on a free port and writes it to PORT_FILE once listening.
"""
import hashlib
import http.server
import pathlib
import sys

ROOT = pathlib.Path(sys.argv[1])


def commit_of(repo):
    return hashlib.sha1(repo.encode()).hexdigest()


class Hub(http.server.BaseHTTPRequestHandler):
    def fail(self, status, code):
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):  # noqa: N802 (http.server's name)
        parts = self.path.split("/")
        # ['', owner, name, 'resolve', revision, file]
        if len(parts) != 6 or parts[3] != "resolve":
            return self.fail(404, "RepoNotFound")
        _, owner, name, _, revision, file = parts
        repo = f"{owner}/{name}"
        folder = ROOT / owner / name
        if not folder.is_dir():
            return self.fail(401, "RepoNotFound")
        if owner == "gated-org" and self.headers.get("Authorization") != "Bearer good-token":
            return self.fail(401, "GatedRepo")
        if revision not in ("main", commit_of(repo)):
            return self.fail(404, "RevisionNotFound")
        path = folder / file
        if not path.is_file():
            return self.fail(404, "EntryNotFound")
        body = path.read_bytes()
        self.send_response(200)
        self.send_header("X-Repo-Commit", commit_of(repo))
        self.send_header("ETag", '"' + hashlib.sha1(body).hexdigest() + '"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
pathlib.Path(sys.argv[2]).write_text(str(server.server_address[1]))
server.serve_forever()
