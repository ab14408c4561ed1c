package dev.loanruntime.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.loanruntime.cluster.WorkerLauncher;
import dev.loanruntime.protocol.StatusLines;

/**
 * A loan-runtime command in a child JVM with the test class path: for behaviour that depends on JVM flags
 * (carriers, heap) or on being a separate process. Always {@link #close()} it (try-with-resources): the process and
 * its descendants are killed by PID even when the test fails.
 */
public final class ServerProcess implements AutoCloseable {
    /**
     * The packaged jar, which failsafe names (mvn verify builds it, and its AOT cache, before the tests run): a
     * {@code dev.loanruntime.Main} child runs from it as {@code java -jar} would, with the cache, and so starts in
     * about half the time of one on the test class path. Null elsewhere (e.g. a test run from an IDE).
     */
    private static final String JAR = System.getProperty("loan.jar");
    private static final Pattern ADMIN = Pattern.compile("admin=(http://\\S+)");
    private final Process process;
    private final List<String> output = new ArrayList<>();
    private final CompletableFuture<Integer> port = new CompletableFuture<>();
    private final Thread reader;

    private ServerProcess(List<String> command, Map<String, String> env) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        this.process = builder.start();
        this.reader = Thread.ofPlatform().daemon().name("server-output-" + process.pid()).start(this::readOutput);
    }

    /**
     * Starts {@code command} as it is (java and all), without waiting: for a JVM that is none of the project's, whose
     * start-up line names {@code address=http://HOST:PORT} (see {@link #awaitPort}).
     */
    public static ServerProcess command(List<String> command) throws IOException {
        return new ServerProcess(command, Map.of());
    }

    /** Starts {@code serve --port 0 <args>} with the given JVM options and waits until it listens. */
    public static ServerProcess serve(List<String> jvmOptions, String... args) throws IOException {
        return serve(Map.of(), jvmOptions, args);
    }

    /** {@link #serve(List, String...)} with {@code env} added to the child's environment (e.g. a store's password). */
    public static ServerProcess serve(Map<String, String> env, List<String> jvmOptions, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(List.of("serve", "--port", "0"));
        command.addAll(List.of(args));
        return startListening(env, jvmOptions, "dev.loanruntime.Main", command);
    }

    /**
     * Starts {@code mainClass args} in a child JVM and waits until it prints its address; stops it by PID when it
     * never does.
     */
    public static ServerProcess startListening(List<String> jvmOptions, String mainClass, List<String> args)
            throws IOException {
        return startListening(Map.of(), jvmOptions, mainClass, args);
    }

    /** {@link #startListening(List, String, List)} with {@code env} added to the child's environment. */
    public static ServerProcess startListening(Map<String, String> env, List<String> jvmOptions, String mainClass,
                                               List<String> args) throws IOException {
        ServerProcess server = start(env, jvmOptions, mainClass, args);
        try {
            server.awaitPort(Duration.ofSeconds(60));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Starts {@code mainClass args} in a child JVM without waiting for anything. */
    public static ServerProcess start(List<String> jvmOptions, String mainClass, List<String> args) throws IOException {
        return start(Map.of(), jvmOptions, mainClass, args);
    }

    /** {@link #start(List, String, List)} with {@code env} added to the child's environment. */
    public static ServerProcess start(Map<String, String> env, List<String> jvmOptions, String mainClass,
                                      List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        if (JAR != null && mainClass.equals("dev.loanruntime.Main") && Files.isRegularFile(Path.of(JAR))) {
            command.addAll(WorkerLauncher.aotCache(JAR, Runtime.version().feature()));
            command.addAll(List.of("-jar", JAR));
        } else {
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(mainClass);
        }
        command.addAll(args);
        return new ServerProcess(command, env);
    }

    private void readOutput() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (output) {
                    output.add(line);
                }
                Matcher m = StatusLines.ADDRESS.matcher(line);
                if (m.find()) {
                    port.complete(Integer.parseInt(m.group(2)));
                }
            }
        } catch (IOException ignored) {
            // the process is gone; its exit code tells the rest
        } finally {
            port.completeExceptionally(new IllegalStateException("server exited before listening:\n" + output()));
        }
    }

    /** Waits until the start-up line names the port. */
    public int awaitPort(Duration timeout) {
        try {
            return port.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("server did not start within " + timeout + ":\n" + output(), e);
        }
    }

    public int port() {
        return awaitPort(Duration.ofSeconds(60));
    }

    public String baseUri() {
        return "http://127.0.0.1:" + port();
    }

    /** The admin port's address the start-up line names ({@code admin=http://HOST:PORT}). */
    public String adminUri() {
        port();
        Matcher m = ADMIN.matcher(output());
        if (!m.find()) {
            throw new IllegalStateException("no admin= in the start-up line:\n" + output());
        }
        return m.group(1);
    }

    public long pid() {
        return process.pid();
    }

    public Process process() {
        return process;
    }

    /** Everything the process printed so far (stdout and stderr). */
    public String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    /** Waits for the process to exit and returns its exit code, or fails after {@code timeout}. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("process " + pid() + " still running after " + timeout + ":\n" + output());
        }
        reader.join(Duration.ofSeconds(5));    // so output() holds its last lines
        return process.exitValue();
    }

    /**
     * Sends SIGTERM and keeps reading the output ({@code Process.destroy()} would close the pipes, losing the
     * last lines).
     */
    public void sigterm() {
        process.toHandle().destroy();
    }

    /** Kills the process and everything it started, by PID. */
    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
