package dev.loanruntime.cluster;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.loanruntime.serve.ServeOptions;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

class WorkerLauncherTest {
    private static final String MAIN = "dev.loanruntime.Main";

    @Test
    void takesTheClassPathFromTheLoaderThatLoadedTheProjectUnderMavenExec() throws Exception {
        Path classes = Path.of("/work/project/target/classes");
        Path jar = Path.of("/home/user/.m2/repository/picocli-4.7.7.jar");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL(), jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            String classPath = WorkerLauncher.projectClassPath(loader, "/usr/share/maven/boot/plexus-classworlds.jar");

            assertThat(classPath, is(classes + File.pathSeparator + jar));
        }
    }

    @Test
    void keepsTheJvmClassPathUnderJavaJar() {
        String classPath = WorkerLauncher.projectClassPath(ClassLoader.getSystemClassLoader(), "target/loan-runtime.jar");

        assertThat(classPath, is("target/loan-runtime.jar"));
    }

    @Test
    void passesEveryServeOptionToTheWorkerAndTheIdThroughTheEnvironment() {
        ServeOptions options = ServeOptions.parse("--port", "8431", "--threads", "platform", "--carriers", "1",
                "--store", "sqlite:/tmp/loans.db", "--member-cost", "1024,8,1", "--stages", "on",
                "--log-slow-requests", "2s", "--pin-watch", "off", "--drain-delay", "7");
        WorkerLauncher launcher = new WorkerLauncher("/jdk/bin/java", "app.jar", MAIN, options, 21);

        List<String> command = launcher.command();
        assertThat("the packaged jar runs as java -jar does, with its manifest", command.subList(0, 4),
                contains("/jdk/bin/java", "-jar", "app.jar", "serve"));
        ServeOptions worker = ServeOptions.parse(command.subList(4, command.size()).toArray(String[]::new));
        assertThat(worker, is(options));
        assertThat(worker, is(not(ServeOptions.defaults())));
        assertThat("the options a worker gets are spelled out, defaults too", String.join(" ", command),
                containsString("--crypto-queue 64"));
        assertThat(launcher.builder(2).environment().get("LOAN_WORKER_ID"), is("2"));
        assertThat(List.of(launcher.builder(2).command().toArray()), is(List.copyOf(launcher.command())));
    }

    @Test
    void theStorePasswordGoesToTheWorkerThroughItsEnvironmentNeverItsCommandLine() {
        ServeOptions options = ServeOptions.parse("--store", "redis-sentinel://ada:data-secret@a:1,b:2/loans");
        WorkerLauncher launcher = new WorkerLauncher("/jdk/bin/java", "app.jar", MAIN, options, 21);

        ProcessBuilder worker = launcher.builder(1);
        assertThat(String.join(" ", worker.command()), allOf(
                containsString("--store redis-sentinel://ada@a:1,b:2/loans/0"), not(containsString("secret"))));
        assertThat(worker.environment().get("LOAN_STORE_PASSWORD"), is("data-secret"));
    }

    @Test
    void aSpareIsAWorkerThatStandsBy() {
        WorkerLauncher launcher = new WorkerLauncher("/jdk/bin/java", "app.jar", MAIN, ServeOptions.defaults(), 25);

        assertThat(launcher.builder(0).command().getLast(), is("--standby"));
        assertThat(launcher.builder(1).command().contains("--standby"), is(false));
    }

    @Test
    void usesTheAotCacheBesideTheJarOnJdk24AndLater(@TempDir Path dir) throws IOException {
        Path jar = Files.writeString(dir.resolve("loan-runtime.jar"), "jar");
        Path cache = Files.writeString(dir.resolve("loan-runtime.aot"), "cache");
        Files.setLastModifiedTime(cache, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 1000));

        WorkerLauncher launcher = new WorkerLauncher("/jdk/bin/java", jar.toString(), MAIN, ServeOptions.defaults(), 25);

        assertThat(launcher.command().subList(0, 5), contains("/jdk/bin/java", "-XX:AOTCache=" + cache,
                "-Xlog:aot*=error", "-jar", jar.toString()));
        assertThat(WorkerLauncher.aotCache(jar.toString(), 24), hasSize(2));
    }

    @Test
    void leavesTheAotCacheOutOnJdk21OrWhenItDoesNotMatchTheClassPath(@TempDir Path dir) throws IOException {
        Path jar = Files.writeString(dir.resolve("loan-runtime.jar"), "jar");
        Path cache = Files.writeString(dir.resolve("loan-runtime.aot"), "cache");
        Files.setLastModifiedTime(cache, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 1000));
        assertThat("JDK 21 has no AOT cache", WorkerLauncher.aotCache(jar.toString(), 21), empty());
        String execClassPath = dir.resolve("classes") + File.pathSeparator + jar;
        assertThat("mvn exec:java's class path", WorkerLauncher.aotCache(execClassPath, 25), empty());
        assertThat("no cache beside this jar", WorkerLauncher.aotCache(dir.resolve("other.jar").toString(), 25),
                empty());

        Files.setLastModifiedTime(cache, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 1000));
        assertThat("a cache older than the jar", WorkerLauncher.aotCache(jar.toString(), 25), empty());
        assertThat(new WorkerLauncher("/jdk/bin/java", jar.toString(), MAIN, ServeOptions.defaults(), 25).command()
                .subList(0, 3), contains("/jdk/bin/java", "-jar", jar.toString()));
    }

    @Test
    void aClassPathOfDirectoriesAllowsNativeAccessItself() {
        String classPath = "target/classes" + File.pathSeparator + "target/libs/sqlite-jdbc.jar";
        List<String> command = new WorkerLauncher("/jdk/bin/java", classPath, MAIN, ServeOptions.defaults(), 25)
                .command();
        assertThat("no manifest speaks for it: SQLite's driver would warn on every worker", command.subList(0, 5),
                contains("/jdk/bin/java", "--enable-native-access=ALL-UNNAMED", "-cp", classPath, MAIN));
    }
}
