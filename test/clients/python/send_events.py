"""A real Python sentry-sdk client for the end-to-end suite.

Usage: python3 send_events.py <dsn> <scenario> <marker>; prints {"eventIds": [...]} on stdout.
"""
import json
import logging
import sys

import sentry_sdk

dsn, scenario, marker = sys.argv[1:4]
sentry_sdk.init(
    dsn=dsn,
    release=f"python-client@{marker}",
    environment="e2e",
    enable_logs=True,
    traces_sample_rate=0,
)
sentry_sdk.set_user({"id": f"python-user-{marker}"})
sentry_sdk.set_tag("marker", marker)


def parse_invoice(raw):
    if "lines" not in raw:
        raise ValueError(f"Invoice {raw['id']} of {marker} has no lines")
    return raw


def load_invoice(invoice_id):
    return parse_invoice({"id": invoice_id})


def load_invoices(invoice_ids):
    # Python 3.11's ExceptionGroup: the SDK sends the group and its members linked by ids.
    failures = []
    for invoice_id in invoice_ids:
        try:
            load_invoice(invoice_id)
        except ValueError as error:
            failures.append(error)
    if failures:
        raise ExceptionGroup(f"Invoices of {marker} failed", failures)


event_ids = []
if scenario == "exception":
    for i in range(3):
        try:
            load_invoice(2000 + i)
        except ValueError as error:
            event_ids.append(sentry_sdk.capture_exception(error))
elif scenario == "exception-group":
    try:
        load_invoices([3001])
    except ExceptionGroup as group:
        event_ids.append(sentry_sdk.capture_exception(group))
elif scenario == "message":
    event_ids.append(sentry_sdk.capture_message(f"Python message {marker}", level="warning"))
elif scenario == "logs":
    sentry_sdk.logger.info(f"Python log info {marker}", attributes={"invoiceId": 7, "paid": False})
    sentry_sdk.logger.warning(f"Python log warn {marker}", attributes={"region": "us"})
    sentry_sdk.logger.error("Python log error {marker} for invoice {invoice}", marker=marker, invoice=42)
elif scenario == "logging":
    logging.getLogger("billing").error("Python logging error %s", marker)
else:
    sys.exit(f"unknown scenario {scenario}")

sentry_sdk.flush(10)
print(json.dumps({"eventIds": event_ids}))
