package dev.loanruntime.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;

/**
 * A steady stream of {@code GET /loan} from a few client threads, each with one request in flight, and the ledger a
 * client can keep of it: the counts of the loans answered 200 (acknowledged), the 503 {@code store_unavailable}
 * answers (failed: the loan may or may not have been counted), and anything else (unexpected). Stop it with
 * {@link #close()}.
 */
public final class LoanLedger implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Long> acknowledged = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong failed = new AtomicLong();
    private final List<String> unexpected = Collections.synchronizedList(new ArrayList<>());
    private final List<Thread> clients = new ArrayList<>();

    private LoanLedger() {
    }

    /** Starts {@code clients} threads that send {@code GET uri} one after another until closed. */
    public static LoanLedger start(Http http, String uri, int clients) {
        LoanLedger ledger = new LoanLedger();
        for (int i = 0; i < clients; i++) {
            ledger.clients.add(Thread.ofPlatform().daemon().name("loan-client-" + i).start(() -> ledger.run(http, uri)));
        }
        return ledger;
    }

    private void run(Http http, String uri) {
        while (running.get()) {
            try {
                Http.Response loan = http.get(uri);
                if (loan.status() == 200) {
                    acknowledged.add(loan.number("loanCounter"));
                } else if (loan.status() == 503 && "store_unavailable".equals(loan.text("error"))) {
                    failed.incrementAndGet();
                } else {
                    unexpected.add(loan.status() + " " + loan.body());
                }
            } catch (RuntimeException e) {
                unexpected.add(e.toString());
            }
        }
    }

    public long acknowledged() {
        return acknowledged.size();
    }

    public long failed() {
        return failed.get();
    }

    /** Waits until {@code more} loans beyond those acknowledged now are acknowledged. */
    public void awaitMoreAcknowledged(long more, Duration timeout) {
        long target = acknowledged() + more;
        await("acknowledged() >= target").atMost(timeout).pollInterval(Duration.ofMillis(20))
                .until(() -> acknowledged() >= target);
    }

    /** Waits until {@code more} requests beyond those failed now have failed. */
    public void awaitMoreFailed(long more, Duration timeout) {
        long target = failed() + more;
        await("failed() >= target").atMost(timeout).pollInterval(Duration.ofMillis(20)).until(() -> failed() >= target);
    }

    /** Stops the clients, waits for their last requests, and returns the final ledger. */
    public Result stop() throws InterruptedException {
        running.set(false);
        for (Thread client : clients) {
            client.join(Duration.ofSeconds(30));
        }
        synchronized (acknowledged) {
            return new Result(List.copyOf(acknowledged), failed.get(), List.copyOf(unexpected));
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    /** The ledger at the end: the acknowledged counts, in the order they came, and the failures. */
    public record Result(List<Long> counts, long failed, List<String> unexpected) {
        public long acknowledged() {
            return counts.size();
        }

        /** The distinct counts among the acknowledged: fewer than {@link #acknowledged()} if one was given twice. */
        public Set<Long> distinct() {
            return new TreeSet<>(counts);
        }

        public long highest() {
            return counts.stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }
}
