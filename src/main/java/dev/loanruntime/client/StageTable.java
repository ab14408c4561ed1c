package dev.loanruntime.client;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.loanruntime.stages.Stage;

/**
 * {@code probe --stages}' table: one row per request, the client's ms, then every stage the round's requests went
 * through in the order they happen, the server's total and outside (client minus server), all in ms.
 */
final class StageTable {
    /** The order of a request's life; a column appears only when some request of the round has the stage. */
    static final List<String> ORDER = Stage.PARTS.stream().map(Stage::label).toList();
    /**
     * Why a response came without stages, printed once under the table: the server adds the header only with its
     * stage points installed ({@code serve --stages on}, off by default) and {@code --server-timing} not off (its
     * default, on-request, answers the {@code Loan-Timing: on} that probe sends).
     */
    static final String NO_STAGES = "no Server-Timing in some responses: a loan-runtime server sends each request's "
            + "stages only when started with 'serve --stages on' (and --server-timing on-request, the default, or "
            + "always)";

    private StageTable() {
    }

    /** Whether some request of the round came back without stages. */
    static boolean anyWithout(List<ProbeReport.Request> requests) {
        return requests.stream().anyMatch(r -> r.stages() == null);
    }

    static void print(List<ProbeReport.Request> requests, PrintStream out) {
        Set<String> present = new LinkedHashSet<>();
        for (String stage : ORDER) {
            if (requests.stream().anyMatch(r -> r.stages() != null && r.stages().containsKey(stage))) {
                present.add(stage);
            }
        }
        List<String> columns = new ArrayList<>(List.of("client"));
        columns.addAll(present);
        columns.addAll(List.of(Stage.TOTAL.label(), "outside"));
        StringBuilder head = new StringBuilder(String.format("%-8s", "ms"));
        columns.forEach(c -> head.append(String.format(" %12s", c)));
        out.println(head);
        for (ProbeReport.Request r : requests) {
            StringBuilder row = new StringBuilder(String.format("%-8s %12.3f", r.name(), r.durationMs()));
            if (r.stages() == null) {
                out.println(row.append("  (no Server-Timing in the response)"));
                continue;
            }
            for (String stage : present) {
                Double ms = r.stages().get(stage);
                row.append(ms == null ? String.format(" %12s", "-") : String.format(" %12.3f", ms));
            }
            row.append(String.format(" %12.3f %12.3f", r.stages().getOrDefault(Stage.TOTAL.label(), 0.0),
                    r.outsideMs()));
            out.println(row);
        }
    }
}
