package dev.loanruntime.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.loanruntime.testing.Http;
import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * Three separate server processes on one store, as the workers of a cluster would be: with a shared store they
 * agree on the count and on sessions; with {@code local} each has its own. One subclass per store, each with its
 * own processes: one test instance per class holds them, so no class can see, or stop, another's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StateAcrossProcessesContract {
    static final int PROCESSES = 3;
    static final int PER_PROCESS = 2_000;
    /** Requests in flight per process: concurrent, without opening thousands of connections. */
    private static final int IN_FLIGHT = 32;
    /** A cheap member cost: these tests are about where sessions live, not about scrypt. */
    static final String CHEAP_MEMBER_COST = "1024,8,1";
    /** Started by the first test of a class and shared by its tests (neither test disturbs the other's state). */
    private final List<ServerProcess> servers = new ArrayList<>();
    private final Http http = new Http();

    /** The {@code --store} argument every process gets. */
    abstract String store();

    /** Whether the processes share the state ({@code false} only for {@code local}). */
    abstract boolean shared();

    /** What each process needs in its environment, e.g. the store's password. */
    Map<String, String> environment() {
        return Map.of();
    }

    /** Arguments a store adds to each process's command line. */
    List<String> storeArguments() {
        return List.of();
    }

    /** Makes the store empty before the processes of a test class start on it. */
    void emptyStore() throws Exception {
    }

    @BeforeEach
    void startProcessesOnce() throws Exception {
        if (!servers.isEmpty()) {
            return;
        }
        emptyStore();
        try (ExecutorService starting = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ServerProcess>> started = new ArrayList<>();
            List<String> arguments = new ArrayList<>(List.of("--store", store(), "--member-cost", CHEAP_MEMBER_COST));
            arguments.addAll(storeArguments());
            for (int i = 0; i < PROCESSES; i++) {
                started.add(starting.submit(() -> ServerProcess.serve(environment(), List.of("-Xmx256m"),
                        arguments.toArray(String[]::new))));
            }
            Exception failure = null;
            for (Future<ServerProcess> server : started) {
                try {
                    servers.add(server.get());
                } catch (Exception e) {
                    failure = e;
                }
            }
            if (failure != null) {
                // All or none: the next test must not run on fewer processes.
                stopProcesses();
                throw failure;
            }
        }
    }

    private void stopProcesses() {
        servers.forEach(ServerProcess::close);
        servers.clear();
    }

    @AfterAll
    void stopProcessesAndClient() {
        stopProcesses();
        http.close();
    }

    @Test
    void concurrentLoansOnThreeProcesses() throws Exception {
        List<Future<List<Long>>> counts = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (ServerProcess server : servers) {
                counts.add(clients.submit(() -> loans(server, PER_PROCESS)));
            }
        }
        List<Set<Long>> perProcess = new ArrayList<>();
        for (Future<List<Long>> count : counts) {
            List<Long> answered = count.get();
            assertThat(answered.size(), is(PER_PROCESS));
            perProcess.add(new TreeSet<>(answered));
        }
        if (shared()) {
            Set<Long> all = new TreeSet<>();
            perProcess.forEach(all::addAll);
            // 6,000 increments handed out 6,000 distinct counts 1..6,000: none lost, none counted twice.
            assertThat("distinct counts " + all.size() + ", from " + first(all) + " to " + last(all),
                    all.equals(range(PROCESSES * PER_PROCESS)), is(true));
            for (ServerProcess server : servers) {
                assertThat(http.get(server.baseUri() + "/status").number("loanCounter"), is((long) PROCESSES * PER_PROCESS));
            }
        } else {
            // Each process counted only its own requests: the lesson's diverging counters.
            for (int i = 0; i < PROCESSES; i++) {
                Set<Long> own = perProcess.get(i);
                assertThat("distinct counts " + own.size() + ", from " + first(own) + " to " + last(own),
                        own.equals(range(PER_PROCESS)), is(true));
                assertThat(http.get(servers.get(i).baseUri() + "/status").number("loanCounter"), is((long) PER_PROCESS));
            }
        }
    }

    @Test
    void sessionCreatedOnOneProcessOnTheOthers() {
        Http.Response login = http.post(servers.get(0).baseUri() + "/member/login", Http.credentials("ada", "password"));
        assertThat(login.status(), is(200));
        String bearer = "Bearer " + login.text("token");

        Http.Response own = http.get(servers.get(0).baseUri() + "/member/session", "Authorization", bearer);
        assertThat(own.status(), is(200));
        assertThat(own.number("pid"), is(servers.get(0).pid()));
        for (ServerProcess other : servers.subList(1, PROCESSES)) {
            Http.Response there = http.get(other.baseUri() + "/member/session", "Authorization", bearer);
            if (shared()) {
                assertThat(there.status(), is(200));
                assertThat(there.text("member"), is("ada"));
                assertThat(there.number("pid"), is(other.pid()));
            } else {
                assertThat(there.status(), is(401));
                assertThat(there.text("error"), is("unknown_session"));
            }
        }

        assertThat(http.post(servers.get(PROCESSES - 1).baseUri() + "/member/logout", "", "Authorization", bearer).status(),
                is(204));
        int afterLogout = http.get(servers.get(0).baseUri() + "/member/session", "Authorization", bearer).status();
        // A logout on another process ends the session everywhere only when the session is shared.
        assertThat(afterLogout, shared() ? is(401) : not(is(401)));
    }

    private List<Long> loans(ServerProcess server, int requests) throws Exception {
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        List<Future<Long>> answers = new ArrayList<>();
        try (ExecutorService requestThreads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < requests; i++) {
                inFlight.acquire();
                answers.add(requestThreads.submit(() -> {
                    try {
                        Http.Response loan = http.get(server.baseUri() + "/loan");
                        if (loan.status() != 200 || loan.number("pid") != server.pid()) {
                            throw new AssertionError("unexpected /loan answer " + loan);
                        }
                        return loan.number("loanCounter");
                    } finally {
                        inFlight.release();
                    }
                }));
            }
        }
        List<Long> counts = new ArrayList<>();
        for (Future<Long> answer : answers) {
            counts.add(answer.get());
        }
        return counts;
    }

    private static Long first(Set<Long> counts) {
        return counts.isEmpty() ? null : ((TreeSet<Long>) counts).first();
    }

    private static Long last(Set<Long> counts) {
        return counts.isEmpty() ? null : ((TreeSet<Long>) counts).last();
    }

    private static Set<Long> range(int n) {
        return LongStream.rangeClosed(1, n).boxed().collect(Collectors.toCollection(TreeSet::new));
    }
}
