package springpeer;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/*
 * A Spring Boot 4 service that knows nothing of loan-runtime, for the agent (AgentIT, experiment 18): Spring MVC on
 * embedded Tomcat with virtual threads on (spring.threads.virtual.enabled), and the routes of PlainVirtualThreadApp:
 * /cheap, /work?ms=N (N ms of CPU on the request's virtual thread) and /pooled?ms=N (the same on a pool of two
 * platform threads, the virtual thread waiting). Compiled and run against Spring Boot's jars (the project's test
 * class path):
 *   java -cp CLASSES:JARS springpeer.SpringVirtualThreadApp PORT       (0: any free port)
 * Prints "spring-app serving address=http://127.0.0.1:P" once it answers.
 */
@SpringBootApplication
@RestController
public class SpringVirtualThreadApp {
    private static final ExecutorService POOL = Executors.newFixedThreadPool(2);

    public static void main(String[] args) {
        SpringApplication.run(SpringVirtualThreadApp.class, "--server.port=" + args[0], "--server.address=127.0.0.1",
                "--spring.threads.virtual.enabled=true", "--spring.main.banner-mode=off",
                "--logging.level.root=warn");
    }

    @EventListener
    public void ready(ApplicationReadyEvent event) {
        System.out.println("spring-app serving address=http://127.0.0.1:"
                + event.getApplicationContext().getEnvironment().getProperty("local.server.port"));
    }

    @GetMapping("/cheap")
    public String cheap() {
        return "cheap";
    }

    @GetMapping("/work")
    public String work(@RequestParam("ms") long ms) {
        spin(ms);
        return "worked";
    }

    @GetMapping("/pooled")
    public String pooled(@RequestParam("ms") long ms) throws InterruptedException, ExecutionException {
        POOL.submit(() -> spin(ms)).get();
        return "pooled";
    }

    /** Keeps its thread on a CPU for {@code ms}: work that never parks. */
    private static void spin(long ms) {
        long end = System.nanoTime() + ms * 1_000_000;
        long x = 0;
        while (System.nanoTime() < end) {
            x += x * 31 + 7;
        }
        if (x == 42) {
            System.out.println();
        }
    }
}
