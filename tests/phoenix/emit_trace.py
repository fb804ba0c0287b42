"""Send one known agent trace to a Phoenix server through the OpenTelemetry SDK's OTLP/HTTP
exporter, with OpenInference attributes, and print the span ids by span name as JSON.

The trace: an agent asks for the weather with a number where the tool's declared schema wants a
string (R1, schema violation), then fetches a page whose tool span ends in an error that the agent
goes on without (R2a, tool error), then reads the time correctly (no finding).

Usage: python emit_trace.py ENDPOINT PROJECT   (ENDPOINT: http://127.0.0.1:PORT/v1/traces)
"""

import json
import sys

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import Status, StatusCode
from openinference.semconv.resource import ResourceAttributes
from openinference.semconv.trace import (
    OpenInferenceSpanKindValues,
    SpanAttributes,
    ToolCallAttributes,
    MessageAttributes,
)

KIND = SpanAttributes.OPENINFERENCE_SPAN_KIND


def schema(**props):
    return json.dumps(
        {
            "type": "object",
            "properties": {k: {"type": t} for k, t in props.items()},
            "required": list(props),
            "additionalProperties": False,
        }
    )


def tool_span(tracer, ids, name, params, args, result, error=None):
    with tracer.start_as_current_span(name) as span:
        ids[name] = format(span.get_span_context().span_id, "016x")
        span.set_attribute(KIND, OpenInferenceSpanKindValues.TOOL.value)
        span.set_attribute(SpanAttributes.TOOL_NAME, name)
        span.set_attribute(SpanAttributes.TOOL_PARAMETERS, params)
        span.set_attribute(SpanAttributes.INPUT_VALUE, json.dumps(args))
        span.set_attribute(SpanAttributes.INPUT_MIME_TYPE, "application/json")
        span.set_attribute(SpanAttributes.OUTPUT_VALUE, result)
        if error is not None:
            span.record_exception(error)
            span.set_status(Status(StatusCode.ERROR, str(error)))


def main():
    endpoint, project = sys.argv[1], sys.argv[2]
    provider = TracerProvider(
        resource=Resource.create({ResourceAttributes.PROJECT_NAME: project})
    )
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    tracer = provider.get_tracer("tracelint-phoenix-test")
    ids = {}
    with tracer.start_as_current_span("agent") as root:
        ids["agent"] = format(root.get_span_context().span_id, "016x")
        trace_id = format(root.get_span_context().trace_id, "032x")
        root.set_attribute(KIND, OpenInferenceSpanKindValues.AGENT.value)
        root.set_attribute(SpanAttributes.INPUT_VALUE, "What is the weather in Paris, and what does the status page say?")
        with tracer.start_as_current_span("llm") as llm:
            ids["llm"] = format(llm.get_span_context().span_id, "016x")
            llm.set_attribute(KIND, OpenInferenceSpanKindValues.LLM.value)
            llm.set_attribute(SpanAttributes.LLM_MODEL_NAME, "gpt-4o-mini")
            prefix = f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0."
            llm.set_attribute(prefix + MessageAttributes.MESSAGE_ROLE, "assistant")
            llm.set_attribute(prefix + MessageAttributes.MESSAGE_CONTENT, "Let me look that up.")
        tool_span(tracer, ids, "get_weather", schema(city="string"), {"city": 75001}, "sunny, 21 C")
        tool_span(
            tracer,
            ids,
            "fetch_page",
            schema(url="string"),
            {"url": "https://status.example.com"},
            "Error: 503 Service Unavailable",
            error=RuntimeError("503 Service Unavailable"),
        )
        tool_span(tracer, ids, "get_time", schema(timezone="string"), {"timezone": "Europe/Paris"}, "14:05")
        root.set_attribute(SpanAttributes.OUTPUT_VALUE, "It is sunny in Paris, and the status page says all systems are up.")
    provider.force_flush()
    provider.shutdown()
    json.dump({"trace_id": trace_id, "spans": ids}, sys.stdout)


if __name__ == "__main__":
    main()
