package dev.loanruntime.stages;

import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The JFR events: one per request when its response has been sent, one per connection when it closes, so that
 * {@code jfr print} shows the stages next to GC pauses and the virtual-thread events. Made only while a recording
 * other than those {@link Stages#leaveOut left out} runs (every server runs one, the pin watch's) and the event is
 * enabled in it: two field reads before any event object exists. Run on the thread that sent the response, or the
 * connection's thread; the recordings are counted again on JFR's thread whenever one starts or stops.
 */
final class StageEvents {
    private static final System.Logger LOGGER = System.getLogger(StageEvents.class.getName());
    private static final EventType REQUEST = EventType.getEventType(RequestEvent.class);
    private static final EventType CONNECTION = EventType.getEventType(ConnectionEvent.class);
    /** Whether a recording that is not left out runs. */
    private static volatile boolean wanted;

    static {
        try {
            FlightRecorder.addListener(new FlightRecorderListener() {
                @Override
                public void recordingStateChanged(Recording recording) {
                    recount();
                }
            });
            recount();
        } catch (RuntimeException e) {     // JFR disabled in this JVM: no recording, no events
            LOGGER.log(System.Logger.Level.WARNING, "stage events are not recorded: " + e);
        }
    }

    private StageEvents() {
    }

    /** Loads and registers both event classes and starts following the recordings (this class's initialization). */
    static void load() {
    }

    private static void recount() {
        wanted = FlightRecorder.getFlightRecorder().getRecordings().stream()
                .anyMatch(r -> r.getState() == RecordingState.RUNNING && !Stages.leftOut(r.getId()));
    }

    static void request(RequestStamps stamps, ServerRequest req, ServerResponse res) {
        if (!wanted || !REQUEST.isEnabled()) {
            return;
        }
        RequestEvent event = new RequestEvent();
        event.path = req.path().path();
        event.status = res.status().code();
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
        if (!wanted || !CONNECTION.isEnabled()) {
            return;
        }
        ConnectionEvent event = new ConnectionEvent();
        event.carrier = stamps.firstRan - stamps.accepted;
        event.open = closed - stamps.accepted;
        event.requests = stamps.requests;
        event.commit();
    }

    @Name(Stages.REQUEST_EVENT)
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

    @Name(Stages.CONNECTION_EVENT)
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
