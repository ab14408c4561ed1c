package dev.loanruntime.deploy;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import dev.loanruntime.testing.RawHttp;
import dev.loanruntime.testing.ServerProcess;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/**
 * The Kubernetes manifests under deploy/k8s, read as YAML and held against a real server: every probe asks for a
 * path the server serves, on the port the container serves; the pieces select the same pods; a deploy and a
 * drain keep capacity. A schema validator would accept a probe on /health/live, which Helidon 4 does not serve.
 */
class ManifestsIT {
    private static final Path DIR = Path.of("deploy", "k8s");
    private static final List<Map<String, Object>> DOCUMENTS = new ArrayList<>();

    @BeforeAll
    static void readManifests() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (Reader reader = Files.newBufferedReader(file)) {
                    for (Object doc : new Yaml().loadAll(reader)) {
                        DOCUMENTS.add(map(doc));
                    }
                }
            }
        }
    }

    @Test
    void everyProbeAsksARealServerForAPathItServesOnThePortTheContainerServes() throws Exception {
        Map<String, Object> container = onlyContainer();
        List<String> args = list(container.get("args"));
        int servedPort = Integer.parseInt(args.get(args.indexOf("--port") + 1));
        List<Map<String, Object>> ports = list(container.get("ports"));
        List<String> probes = List.of("startupProbe", "readinessProbe", "livenessProbe");
        try (ServerProcess server = ServerProcess.serve(List.of())) {
            for (String probe : probes) {
                Map<String, Object> httpGet = map(map(container.get(probe)).get("httpGet"));
                Object port = httpGet.get("port");
                int probePort = port instanceof Integer n ? n : ports.stream()
                        .filter(p -> port.equals(p.get("name"))).map(p -> (Integer) p.get("containerPort"))
                        .findFirst().orElseThrow(() -> new AssertionError(probe + ": no container port " + port));
                assertThat(probe + " port", probePort, is(servedPort));
                String path = (String) httpGet.get("path");
                RawHttp.Response answer = RawHttp.get(server.port(), path);
                // the kubelet counts 200 to 399 as success
                assertThat(probe + " GET " + path + ": " + answer.body(), answer.status(), greaterThanOrEqualTo(200));
                assertThat(probe + " GET " + path + ": " + answer.body(), answer.status(), lessThan(400));
            }
        }
    }

    @Test
    void aDeployNeverLowersCapacityAndTheGracePeriodCoversTheDrain() {
        Map<String, Object> spec = map(one("Deployment").get("spec"));
        Map<String, Object> rolling = map(map(spec.get("strategy")).get("rollingUpdate"));
        assertThat(rolling.get("maxUnavailable"), is(0));
        Map<String, Object> pod = map(map(spec.get("template")).get("spec"));
        long drain = list(onlyContainer().get("env")).stream().map(ManifestsIT::map)
                .filter(e -> "LOAN_DRAIN_DELAY".equals(e.get("name")))
                .mapToLong(e -> Long.parseLong((String) e.get("value"))).findFirst().orElseThrow();
        // after the drain, the server's shutdown grace period (application.yaml: 10 s), then a margin
        assertThat((Integer) pod.get("terminationGracePeriodSeconds"), is(greaterThan((int) drain + 10)));
    }

    @Test
    void theServiceAndTheDisruptionBudgetSelectTheDeploymentsPods() {
        Map<String, Object> deployment = map(one("Deployment").get("spec"));
        Object podLabels = map(map(deployment.get("template")).get("metadata")).get("labels");
        assertThat(map(deployment.get("selector")).get("matchLabels"), is(podLabels));
        Map<String, Object> service = map(one("Service").get("spec"));
        assertThat(service.get("selector"), is(podLabels));
        Object target = map(list(service.get("ports")).getFirst()).get("targetPort");
        assertThat("the Service's targetPort names a container port",
                list(onlyContainer().get("ports")).stream().map(ManifestsIT::map)
                        .anyMatch(p -> target.equals(p.get("name")) || target.equals(p.get("containerPort"))), is(true));
        assertThat(map(map(one("PodDisruptionBudget").get("spec")).get("selector")).get("matchLabels"), is(podLabels));
    }

    private static Map<String, Object> onlyContainer() {
        Map<String, Object> pod = map(map(map(one("Deployment").get("spec")).get("template")).get("spec"));
        List<Map<String, Object>> containers = list(pod.get("containers"));
        assertThat("one serve JVM per pod", containers, hasSize(1));
        return containers.getFirst();
    }

    private static Map<String, Object> one(String kind) {
        List<Map<String, Object>> found = DOCUMENTS.stream().filter(d -> kind.equals(d.get("kind"))).toList();
        assertThat(kind + " manifests in " + DIR, found, hasSize(1));
        return found.getFirst();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object yaml) {
        return (Map<String, Object>) yaml;
    }

    @SuppressWarnings("unchecked")
    private static <T> List<T> list(Object yaml) {
        return (List<T>) yaml;
    }
}
