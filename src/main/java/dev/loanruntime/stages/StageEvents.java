package dev.loanruntime.stages;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The JFR events: one per request when its response has been sent, one per connection when it closes, so that
 * {@code jfr print} shows the stages next to GC pauses and the virtual-thread events. Without a recording they cost
 * a check the JIT removes. Run on the thread that sent the response, or the connection's thread.
 */
final class StageEvents {
    private StageEvents() {
    }

    static void request(RequestStamps stamps, String path, int status) {
        RequestEvent event = new RequestEvent();
        if (!event.isEnabled()) {
            return;
        }
        event.path = path;
        event.status = status;
        event.firstOnConnection = stamps.first();
        for (RequestStamps.Stage stage : stamps.stages()) {
            long nanos = stage.nanos();
            switch (stage.name()) {
                case "carrier" -> event.carrier = nanos;
                case "line" -> event.line = nanos;
                case "idle" -> event.idle = nanos;
                case "headers" -> event.headers = nanos;
                case "admit" -> event.admit = nanos;
                case "queue" -> event.queue = nanos;
                case "handler" -> event.handler = nanos;
                case "crypto-queue" -> event.cryptoQueue = nanos;
                case "derive" -> event.derive = nanos;
                case "resume" -> event.resume = nanos;
                case "write" -> event.write = nanos;
                case "total" -> event.total = nanos;
                default -> throw new IllegalStateException("a stage without a field: " + stage.name());
            }
        }
        event.commit();
    }

    static void connection(ConnectionStamps stamps, long closed) {
        ConnectionEvent event = new ConnectionEvent();
        if (!event.isEnabled()) {
            return;
        }
        event.carrier = stamps.firstRan - stamps.accepted;
        event.open = closed - stamps.accepted;
        event.requests = stamps.requests;
        event.commit();
    }

    @Name("dev.loanruntime.RequestStages")
    @Label("Request Stages")
    @Category("loan-runtime")
    @Description("Where one request's time went, from accept (or its request line, on a kept-alive connection) to sent")
    @StackTrace(false)
    static final class RequestEvent extends Event {
        @Label("Path")
        String path;
        @Label("Status")
        int status;
        @Label("First On Connection")
        boolean firstOnConnection;
        @Label("Carrier") @Timespan
        long carrier;
        @Label("Line") @Timespan
        long line;
        @Label("Idle") @Timespan
        long idle;
        @Label("Headers") @Timespan
        long headers;
        @Label("Admit") @Timespan
        long admit;
        @Label("Queue") @Timespan
        long queue;
        @Label("Handler") @Timespan
        long handler;
        @Label("Crypto Queue") @Timespan
        long cryptoQueue;
        @Label("Derive") @Timespan
        long derive;
        @Label("Resume") @Timespan
        long resume;
        @Label("Write") @Timespan
        long write;
        @Label("Total") @Timespan
        long total;
    }

    @Name("dev.loanruntime.Connection")
    @Label("Connection")
    @Category("loan-runtime")
    @Description("One connection: its wait for a carrier before its thread first ran, how long it was open, requests")
    @StackTrace(false)
    static final class ConnectionEvent extends Event {
        @Label("Carrier") @Timespan
        long carrier;
        @Label("Open") @Timespan
        long open;
        @Label("Requests")
        int requests;
    }
}
