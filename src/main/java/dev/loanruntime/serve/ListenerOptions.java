package dev.loanruntime.serve;

import java.time.Duration;
import java.util.OptionalInt;

import picocli.CommandLine.Option;

import dev.loanruntime.cli.Converters.DurationConverter;
import dev.loanruntime.cli.Converters.OptionalPortConverter;
import dev.loanruntime.cli.Converters.SecondsOrDurationConverter;
import dev.loanruntime.cli.Converters.SwitchConverter;
import dev.loanruntime.cli.Defaults;
import dev.loanruntime.cli.Durations;
import dev.loanruntime.cli.Range;
import dev.loanruntime.cli.UsageError;
import dev.loanruntime.settings.Switch;

/**
 * One section of {@link ServeOptions}: the listener, where it binds, which protocols it speaks, how long a request's
 * head may take, and how long it keeps serving after SIGTERM.
 */
public final class ListenerOptions {
    @Option(names = "--host", defaultValue = Defaults.HOST, paramLabel = "HOST",
            description = "Address to bind (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", defaultValue = Defaults.PORT, paramLabel = "PORT",
            description = "Port to bind, 0 for any free port (default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 65_535)
    private int port;

    // Any free port by default: two servers on one machine must not collide, and the serving line names it.
    @Option(names = "--admin-port", defaultValue = "0", paramLabel = "PORT|off",
            converter = OptionalPortConverter.class,
            description = "A second port for /runtime, /observe/metrics and /observe/health, served by platform "
                    + "threads: it answers while every carrier is held and is never refused by --limit or "
                    + "--shed-delay; 0 for any free port (the serving line names it), off for none; in a cluster, "
                    + "worker N takes PORT + N - 1 (default: ${DEFAULT-VALUE}).")
    private OptionalInt adminPort;

    // Sized to deploy/haproxy.cfg's check: (fall 3 + 1) x inter 1 s.
    @Option(names = "--drain-delay", defaultValue = "4s", paramLabel = "DURATION",
            converter = SecondsOrDurationConverter.class,
            description = "After SIGTERM, report not-ready (/observe/health/ready and /observe/health/check/drain "
                    + "answer 503) and keep serving this long, e.g. 4s or 500ms (a bare number is seconds), so that a "
                    + "load balancer's health check takes this server out before its listener closes; then finish "
                    + "the requests in flight and exit. 0: stop accepting at once. SIGINT, or the end of a cluster's "
                    + "primary, skips it (default: ${DEFAULT-VALUE}).")
    @Range(min = 0, max = 600_000)
    private Duration drainDelay;

    // Helidon 4.5 has no deadline for a request's headers and no read timeout on server sockets: without this, a
    // client sending its head a byte at a time holds a connection forever. A real client sends its whole head (well
    // under 8 KiB) in one packet; 10 s leaves room for a bad mobile link.
    @Option(names = "--request-head-timeout", defaultValue = "10s", paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "Once a request line has arrived, its headers must end within this time, or the client "
                    + "gets 408 and the connection closes, e.g. 10s or 500ms (default: ${DEFAULT-VALUE}).")
    private Duration requestHeadTimeout;

    // On: HTTP/2 is what balancers, gRPC and browsers speak to a backend; off, to compare with HTTP/1.1 alone.
    @Option(names = "--http2", defaultValue = "on", paramLabel = "on|off", converter = SwitchConverter.class,
            description = "Speak HTTP/2 without TLS (h2c) on the same port beside HTTP/1.1: a client that opens with "
                    + "HTTP/2's preface (prior knowledge, as h2load and curl --http2-prior-knowledge do) or asks with "
                    + "'Upgrade: h2c'; each stream is a request on a virtual thread of its own. The settings are "
                    + "server.protocols.http_2 in application.yaml (default: ${DEFAULT-VALUE}).")
    private Switch http2;

    /** The admin port (0: any free one), empty with {@code --admin-port off}. */
    public OptionalInt adminPort() {
        return adminPort;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** Whether the listener speaks HTTP/2 (h2c) beside HTTP/1.1. */
    public boolean http2() {
        return http2 == Switch.ON;
    }

    public Duration drainDelay() {
        return drainDelay;
    }

    public Duration requestHeadTimeout() {
        return requestHeadTimeout;
    }

    /** Checks this section's values; errors name the option. */
    void validate() {
        UsageError.checkRanges(this);
        if (host == null || host.isBlank()) {
            throw UsageError.invalid("--host", "a host name or address", host);
        }
        if (requestHeadTimeout.isZero()) {
            throw UsageError.invalid("--request-head-timeout", "a duration above 0",
                    Durations.format(requestHeadTimeout));
        }
    }
}
