#!/usr/bin/env python3
"""redfish-peer - a Redfish BMC on 127.0.0.1 for the tests of the redfish
driver: a small mockup whose power readings follow a known waveform.

  redfish-peer.py --port-file F [--count-file F] [--offer energy,power,legacy]
                  [--wave SPEC] [--cpu-wave SPEC] [--origin NS]
                  [--user U --password P] [--cert F --key F]
                  [--fault-file F] [--chassis ID] [--late S:N]
                  [--pace P [--late-new S]] [--taken F]

Serves, with HTTP/1.1 keep-alive, on a free port that it writes to
--port-file once it listens:

  /redfish/v1                              service root
  /redfish/v1/Chassis                      the collection
  /redfish/v1/Chassis/ID                   the chassis, linking what it offers
  /redfish/v1/Chassis/ID/EnvironmentMetrics  PowerWatts.Reading (power),
                                           EnergyJoules.Reading (energy)
  /redfish/v1/Chassis/ID/Power             PowerControl[] (legacy): the
                                           chassis, and a CPU entry when
                                           --cpu-wave is given

Readings are taken at the moment of each request from the waveform SPEC
of tests/wave.c (const:W, square:LOW:HIGH:PERIOD, ramp:LOW:HIGH:PERIOD),
which starts at ORIGIN_NS on CLOCK_MONOTONIC: PowerWatts is the power now,
EnergyJoules a base of 1000000 J plus the energy from ORIGIN_NS to now.
The formulas are those of tests/wave.c, which the tests use as the truth.

With --user, every request needs HTTP basic authentication with that user
and password, else 401.  Every request is counted; --count-file holds the
count after each one.  With --cert and --key it serves HTTPS.  When
--fault-file exists, its first word makes the readings fail: "null" (a
null Reading), "missing" (no reading property), "garbage" (a body that is
not JSON), "big" (a body of 2 MiB), or an HTTP status such as "500".
With --late S:N, of every N requests for a reading all but the first wait
S seconds before the reading is taken: a BMC held up after the request
came, whose value belongs to the end of the round trip, not its middle.
With --pace P, EnergyJoules is published every P seconds, as a BMC that
samples its sensors at its own pace: its value is the energy up to the
last multiple of P after ORIGIN_NS.  With --late-new S as well, the first
request that sees a newly published value waits S seconds first (a BMC
that computes it on a cache miss), and the others are answered at once.
With --taken F, each reading document served (EnvironmentMetrics, Power)
adds "NS WATTS" to F: the CLOCK_MONOTONIC instant its values were taken
and the chassis power then, and "NS WATTS JOULES" for an
EnvironmentMetrics that carries EnergyJoules, its Reading: a test holds
each of the driver's stamps, and each counter read, to it.  Standard library only.
"""
import argparse
import base64
import json
import math
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ENERGY_BASE = 1000000.0


class Wave:
    """A waveform of tests/wave.c: the same parse, power and energy."""

    def __init__(self, text):
        kind, *args = text.split(":")
        self.kind = kind
        vals = [float(a) for a in args]
        if kind == "const" and len(vals) == 1:
            self.low = self.high = vals[0]
            self.period = 1.0
        elif kind in ("square", "ramp") and len(vals) == 3 and vals[2] > 0:
            self.low, self.high, self.period = vals
        else:
            raise ValueError("bad waveform: " + text)

    def cumulative(self, x):
        if x <= 0:
            return self.low * x
        n = math.floor(x / self.period)
        r = x - n * self.period
        half = self.period / 2
        if self.kind == "square":
            return n * half * (self.low + self.high) + (
                self.low * r if r < half
                else self.low * half + self.high * (r - half))
        if self.kind == "ramp":
            return (n * self.period * (self.low + self.high) / 2
                    + self.low * r
                    + (self.high - self.low) * r * r / (2 * self.period))
        return self.low * x

    def power(self, x):
        if x < 0 or self.kind == "const":
            return self.low
        r = math.fmod(x, self.period)
        if self.kind == "square":
            return self.low if r < self.period / 2 else self.high
        return self.low + (self.high - self.low) * r / self.period


class Peer:
    def __init__(self, args):
        self.args = args
        self.offer = set(args.offer.split(","))
        self.wave = Wave(args.wave)
        self.cpu = Wave(args.cpu_wave) if args.cpu_wave else None
        self.origin = args.origin if args.origin else time.monotonic_ns()
        self.lock = threading.Lock()
        self.count = 0
        self.readings = 0
        self.late, self.late_n = 0.0, 0
        if args.late:
            s, n = args.late.split(":")
            self.late, self.late_n = float(s), int(n)
        self.pace = args.pace or 0.0
        self.late_new = args.late_new or 0.0
        self.served = -1
        self.auth = None
        if args.user is not None:
            pair = "%s:%s" % (args.user, args.password or "")
            self.auth = "Basic " + base64.b64encode(pair.encode()).decode()
        self.root = "/redfish/v1"
        self.chassis = self.root + "/Chassis/" + args.chassis
        self.taken = open(args.taken, "a") if args.taken else None

    def took(self, path, now, doc):
        """Log the instant a reading document DOC's values were taken."""
        if self.taken is None or not path.endswith(
                ("/EnvironmentMetrics", "/Power")):
            return
        line = "%d %.9g" % (now, self.wave.power((now - self.origin) * 1e-9))
        if doc is not None and "EnergyJoules" in doc:
            line += " %.17g" % doc["EnergyJoules"]["Reading"]
        with self.lock:
            self.taken.write(line + "\n")
            self.taken.flush()

    def counted(self):
        with self.lock:
            self.count += 1
            if self.args.count_file:
                tmp = self.args.count_file + ".tmp"
                with open(tmp, "w") as f:
                    f.write("%d\n" % self.count)
                os.replace(tmp, self.args.count_file)

    def fault(self):
        try:
            with open(self.args.fault_file) as f:
                return (f.read().split() or [""])[0]
        except (OSError, TypeError):
            return ""

    def hold(self, path):
        """Wait before a reading, as --late and --late-new say."""
        if not path.endswith(("/EnvironmentMetrics", "/Power")):
            return
        if self.pace > 0 and self.late_new > 0:
            x = (time.monotonic_ns() - self.origin) * 1e-9
            slot = math.floor(x / self.pace)
            with self.lock:
                new = slot != self.served
                self.served = slot
            if new:
                time.sleep(self.late_new)
        if self.late_n <= 0:
            return
        with self.lock:
            k = self.readings
            self.readings += 1
        if k % self.late_n != 0:
            time.sleep(self.late)

    def resource(self, path):
        """The document at PATH, as of now, or None."""
        now = time.monotonic_ns()
        doc = self.document(path, now)
        self.took(path, now, doc)
        return doc

    def document(self, path, now):
        """The document at PATH as of NOW, or None."""
        x = (now - self.origin) * 1e-9
        if path == self.root:
            return {"@odata.id": self.root, "Id": "RootService",
                    "RedfishVersion": "1.15.0",
                    "Chassis": {"@odata.id": self.root + "/Chassis"}}
        if path == self.root + "/Chassis":
            return {"@odata.id": path, "Members@odata.count": 1,
                    "Members": [{"@odata.id": self.chassis}]}
        if path == self.chassis:
            doc = {"@odata.id": path, "Id": self.args.chassis,
                   "Name": "Computer System Chassis",
                   "ChassisType": "RackMount", "PowerState": "On"}
            if self.offer & {"energy", "power"}:
                doc["EnvironmentMetrics"] = {
                    "@odata.id": path + "/EnvironmentMetrics"}
            if "legacy" in self.offer:
                doc["Power"] = {"@odata.id": path + "/Power"}
            return doc
        if path == self.chassis + "/EnvironmentMetrics" and \
                self.offer & {"energy", "power"}:
            doc = {"@odata.id": path,
                   "@odata.type": "#EnvironmentMetrics.v1_3_0."
                                  "EnvironmentMetrics",
                   "Id": "EnvironmentMetrics", "Name": "Chassis metrics",
                   "TemperatureCelsius": {"Reading": 24.5}}
            if "power" in self.offer:
                doc["PowerWatts"] = {
                    "Reading": self.wave.power(x),
                    "DataSourceUri": self.chassis + "/Sensors/TotalPower"}
            if "energy" in self.offer:
                xe = x
                if self.pace > 0 and x > 0:
                    xe = math.floor(x / self.pace) * self.pace
                doc["EnergyJoules"] = {
                    "Reading": ENERGY_BASE + self.wave.cumulative(xe)}
            return doc
        if path == self.chassis + "/Power" and "legacy" in self.offer:
            pc = [{"@odata.id": path + "#/PowerControl/0", "MemberId": "0",
                   "Name": "System Power Control",
                   "PowerConsumedWatts": self.wave.power(x),
                   "PowerCapacityWatts": 800,
                   "PowerMetrics": {"IntervalInMin": 1,
                                    "AverageConsumedWatts": 200},
                   "RelatedItem": [{"@odata.id": self.chassis}]}]
            if self.cpu:
                pc.append({"@odata.id": path + "#/PowerControl/1",
                           "MemberId": "1", "Name": "CPU Sub-system Power",
                           "PhysicalContext": "CPU",
                           "PowerConsumedWatts": self.cpu.power(x)})
            pc.append({"@odata.id": path + "#/PowerControl/2",
                       "MemberId": "2", "Name": "Power limit only",
                       "PowerLimit": {"LimitInWatts": 500}})
            return {"@odata.id": path, "@odata.type": "#Power.v1_7_1.Power",
                    "Id": "Power", "Name": "Power", "PowerControl": pc,
                    "PowerSupplies": [{"MemberId": "0",
                                       "PowerInputWatts": 230,
                                       "PowerOutputWatts": 210}]}
        return None


def handler(peer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "redfish-peer/1"
        # Headers and body go out in two writes: without this, Nagle's
        # algorithm and the client's delayed ACK hold the body ~40 ms.
        disable_nagle_algorithm = True

        def log_message(self, fmt, *args):
            pass

        def send(self, status, body, ctype="application/json"):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("OData-Version", "4.0")
            if status == 401:
                self.send_header("WWW-Authenticate", 'Basic realm="BMC"')
            self.end_headers()
            self.wfile.write(body)

        def error(self, status, message):
            self.send(status, json.dumps({"error": {
                "code": "Base.1.8.GeneralError",
                "message": message}}).encode())

        def do_GET(self):
            peer.counted()
            if peer.auth and self.headers.get("Authorization") != peer.auth:
                return self.error(401, "authentication required")
            path = self.path.split("?")[0].rstrip("/")
            peer.hold(path)
            doc = peer.resource(path)
            if doc is None:
                return self.error(404, "no such resource: " + path)
            reading = path.endswith(("/EnvironmentMetrics", "/Power"))
            fault = peer.fault() if reading else ""
            if fault.isdigit():
                return self.error(int(fault), "fault injected")
            if fault == "garbage":
                return self.send(200, b"<html>Service Unavailable</html>")
            if fault == "big":
                return self.send(200, b" " * (2 << 20))
            for key in ("PowerWatts", "EnergyJoules"):
                if fault == "null" and key in doc:
                    doc[key]["Reading"] = None
                if fault == "missing":
                    doc.pop(key, None)
            for entry in doc.get("PowerControl", []):
                if fault == "null" and "PowerConsumedWatts" in entry:
                    entry["PowerConsumedWatts"] = None
                if fault == "missing":
                    entry.pop("PowerConsumedWatts", None)
            self.send(200, json.dumps(doc).encode())

    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--count-file")
    ap.add_argument("--offer", default="energy,power,legacy")
    ap.add_argument("--wave", default="const:200")
    ap.add_argument("--cpu-wave")
    ap.add_argument("--origin", type=int, default=0)
    ap.add_argument("--user")
    ap.add_argument("--password")
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--fault-file")
    ap.add_argument("--chassis", default="1U")
    ap.add_argument("--late")
    ap.add_argument("--pace", type=float)
    ap.add_argument("--late-new", type=float)
    ap.add_argument("--taken")
    args = ap.parse_args()
    peer = Peer(args)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(peer))
    server.daemon_threads = True
    if args.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(tmp, args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
