package dev.loanruntime.stages;

import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.util.ArrayList;
import java.util.List;

import jdk.jfr.AnnotationElement;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventFactory;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.ValueDescriptor;

/**
 * The JFR events: one per request when its response has been sent, one per connection when it closes, so that
 * {@code jfr print} shows the stages next to GC pauses and the virtual-thread events. Made only while a recording
 * other than those {@link Stages#leaveOut left out} runs (every server runs one, the pin watch's) and the event is
 * enabled in it: two field reads before any event object exists. Run on the thread that sent the response, or the
 * connection's thread; the recordings are counted again on JFR's thread whenever one starts or stops.
 */
final class StageEvents {
    private static final System.Logger LOGGER = System.getLogger(StageEvents.class.getName());
    /** The request event's fields before its stages, which follow in {@link Stage}'s order. */
    private static final int STAGE_FIELDS_FROM = 3;
    /** The request event: path, status, whether first on its connection, then a field per {@link Stage}. */
    private static final EventFactory REQUEST_EVENTS = requestEvents();
    private static final EventType REQUEST = REQUEST_EVENTS.getEventType();
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
        Event event = REQUEST_EVENTS.newEvent();
        event.set(0, req.path().path());
        event.set(1, res.status().code());
        event.set(2, stamps.first());
        for (RequestStamps.Span span : stamps.stages()) {
            event.set(STAGE_FIELDS_FROM + span.stage().ordinal(), span.nanos());
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

    /** The request event's type, its fields made from {@link Stage}: a stage cannot lack its field. */
    private static EventFactory requestEvents() {
        List<ValueDescriptor> fields = new ArrayList<>(List.of(
                field(String.class, "path", "Path"),
                field(int.class, "status", "Status"),
                field(boolean.class, "firstOnConnection", "First On Connection")));
        for (Stage stage : Stage.values()) {
            fields.add(new ValueDescriptor(long.class, stage.field(), List.of(
                    new AnnotationElement(Label.class, stage.title()),
                    new AnnotationElement(Timespan.class, Timespan.NANOSECONDS))));
        }
        return EventFactory.create(List.of(
                new AnnotationElement(Name.class, Stages.REQUEST_EVENT),
                new AnnotationElement(Label.class, "Request Stages"),
                new AnnotationElement(Category.class, new String[] {"loan-runtime"}),
                new AnnotationElement(Description.class, "Where one request's time went, from accept (or its request "
                        + "line, on a kept-alive connection) to sent"),
                new AnnotationElement(StackTrace.class, false)), fields);
    }

    private static ValueDescriptor field(Class<?> type, String name, String label) {
        return new ValueDescriptor(type, name, List.of(new AnnotationElement(Label.class, label)));
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
