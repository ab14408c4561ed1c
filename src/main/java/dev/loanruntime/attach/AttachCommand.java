package dev.loanruntime.attach;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code attach PID [OPTIONS]}: loads the monitors' agent (target/loan-runtime-agent.jar) into a JVM that runs
 * already, the one that misbehaves now, through the JDK's Attach API. The JVM must run as this user, and allow
 * dynamic agents (it does by default; JDK 21+ prints a warning on its own stderr when one is loaded).
 */
@Command(name = "attach", mixinStandardHelpOptions = true,
         description = {"Load the monitors (carrier delay, pinned virtual threads, the scheduler's counts) into the "
                 + "running JVM PID, as -javaagent:loan-runtime-agent.jar=OPTIONS would at its start: JFR events, "
                 + "MXBeans, and with port=N Prometheus text at http://127.0.0.1:N/metrics.",
                 "OPTIONS: port=N, host=H (127.0.0.1), resolution=DURATION (10ms), log-over=DURATION (off), "
                         + "pins=on|off (off: the pin watch runs JFR), separated by commas (docs/agent.md)."})
public final class AttachCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID", description = "The JVM's process id.")
    long pid;

    @Parameters(index = "1", arity = "0..1", paramLabel = "OPTIONS", description = "The agent's options, e.g. "
            + "port=9464,log-over=200ms.")
    String options = "";

    @Option(names = "--agent", paramLabel = "JAR", description = "The agent's jar (default: loan-runtime-agent.jar "
            + "beside the running loan-runtime.jar).")
    Path agent;

    @Override
    public Integer call() {
        Path jar = agent != null ? agent : besideThisJar();
        if (jar == null || !Files.isRegularFile(jar)) {
            System.err.println("attach: no agent jar at " + jar
                    + " (build it with 'mvn package', or give --agent JAR)");
            return 2;
        }
        try {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            try {
                // the target JVM opens the jar itself: an absolute path
                vm.loadAgent(jar.toAbsolutePath().toString(), options);
            } finally {
                vm.detach();
            }
        } catch (AttachNotSupportedException e) {
            System.err.println("attach: cannot attach to pid " + pid + ": " + e.getMessage());
            return 1;
        } catch (AgentInitializationException e) {
            System.err.println("attach: the agent did not start in pid " + pid + ": " + e.getMessage());
            return 1;
        } catch (AgentLoadException | IOException e) {
            System.err.println("attach: pid " + pid + " did not load " + jar + ": " + e.getMessage());
            return 1;
        }
        System.out.println("attached the monitors to pid " + pid + (options.isEmpty() ? "" : " with " + options)
                + "; its stderr says where they serve");
        return 0;
    }

    /** target/loan-runtime-agent.jar when this code runs from target/loan-runtime.jar, else null. */
    private static Path besideThisJar() {
        try {
            Path self = Path.of(AttachCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isRegularFile(self) ? self.resolveSibling("loan-runtime-agent.jar") : null;
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
