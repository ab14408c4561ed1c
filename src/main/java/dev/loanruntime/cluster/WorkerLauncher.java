package dev.loanruntime.cluster;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.loanruntime.protocol.PrimaryWatch;
import dev.loanruntime.serve.ServeOptions;

/**
 * The command line of a worker JVM: the primary's own java, the JDK's AOT cache when one matches, then
 * {@code -jar JAR} for the packaged project (the jar's manifest names the main class and allows native access) or
 * {@code --enable-native-access=ALL-UNNAMED -cp CLASS_PATH MAIN_CLASS} for a class path of directories and jars,
 * {@code serve} with the cluster's options (plus {@code --standby} for a spare), and the worker id in the
 * environment ({@code LOAN_WORKER_ID}), with the store's passwords ({@code LOAN_STORE_PASSWORD},
 * {@code LOAN_SENTINEL_PASSWORD}), which a command line would show to every user of the machine.
 */
public final class WorkerLauncher {
    static final String WORKER_ID_ENV = PrimaryWatch.WORKER_ID_ENV;
    private final List<String> command;
    private final Map<String, String> storeEnvironment;

    /**
     * Workers run {@code mainClass}, the class of the command line that runs this primary (from the packaged jar,
     * its manifest's, the same class): it is passed in, not named here, because the composition root depends on
     * this package and never the other way.
     */
    WorkerLauncher(Class<?> mainClass, ServeOptions options) {
        this(javaBinary(), projectClassPath(mainClass.getClassLoader(), System.getProperty("java.class.path")),
                mainClass.getName(), options, Runtime.version().feature());
    }

    WorkerLauncher(String java, String classPath, String mainClass, ServeOptions options, int jdkFeature) {
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(aotCache(classPath, jdkFeature));
        if (oneJar(classPath)) {
            // as `java -jar` runs it: its manifest names the main class and lets SQLite's driver load its native
            // library without a warning (Enable-Native-Access), and the AOT cache was trained on the same command
            cmd.addAll(List.of("-jar", classPath));
        } else {
            // a class path of directories and jars (mvn exec:java, the tests): no manifest speaks for it
            cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", classPath, mainClass));
        }
        cmd.addAll(serveArgs(options));
        this.command = List.copyOf(cmd);
        this.storeEnvironment = options.storage().store().environment();
    }

    /**
     * A process builder for worker {@code id}, or a spare for 0; its stdin stays a pipe that the primary holds open.
     */
    ProcessBuilder builder(int id) {
        List<String> cmd = new ArrayList<>(command);
        if (id == 0) {
            cmd.add("--standby");
        }
        ProcessBuilder builder = new ProcessBuilder(cmd);
        Map<String, String> env = builder.environment();
        env.put(WORKER_ID_ENV, Integer.toString(id));
        // The store's passwords travel here, not in argv: a command line is readable by every user of the machine.
        env.putAll(storeEnvironment);
        return builder;
    }

    List<String> command() {
        return command;
    }

    /** {@code serve} with every option spelled out, so the worker does not depend on the primary's environment. */
    static List<String> serveArgs(ServeOptions o) {
        List<String> args = new ArrayList<>(List.of("serve"));
        args.addAll(o.toArgs());
        return args;
    }

    /**
     * {@code -XX:AOTCache=<jar without .jar>.aot} when the JDK can use an AOT cache (24 and later), the class path is
     * one jar (the packaged project: the cache is bound to the class path it was trained with, so under
     * {@code mvn exec:java}, with a class path of directories and jars, there is none to use), and the cache beside
     * it is not older than the jar. Empty otherwise. The JVM checks the cache itself too and starts without it, with
     * a warning, when it does not match: a cache never keeps a worker from starting.
     */
    public static List<String> aotCache(String classPath, int jdkFeature) {
        if (jdkFeature < 24 || !oneJar(classPath)) {
            return List.of();
        }
        Path jar = Path.of(classPath);
        String name = jar.getFileName().toString();
        Path cache = jar.resolveSibling(name.substring(0, name.length() - ".jar".length()) + ".aot");
        try {
            if (Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar)) < 0) {
                return List.of(); // built before the jar it was trained on: the JVM would reject it anyway
            }
        } catch (IOException e) {
            return List.of(); // no cache (or no jar): a JDK 21 build, or a jar built without the training run
        }
        // JDK 25.0.3 warns on every start that it could not link one cached adapter (it makes that one anew);
        // errors, among them a cache that does not match, are still printed.
        return List.of("-XX:AOTCache=" + cache, "-Xlog:aot*=error");
    }

    /** Whether {@code classPath} is one jar, the packaged project (its manifest lists the libraries). */
    private static boolean oneJar(String classPath) {
        return !classPath.contains(File.pathSeparator) && classPath.endsWith(".jar");
    }

    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The class path that loaded the project. Under {@code java -jar} or {@code java -cp} it is the JVM's own
     * ({@code java.class.path}; the jar's manifest lists the libraries). Under {@code mvn exec:java} the JVM is
     * Maven's and {@code java.class.path} holds Maven's boot jars; the project was loaded by a URLClassLoader that
     * the exec plugin built from the project's class path, so its URLs are the answer.
     */
    static String projectClassPath(ClassLoader loader, String javaClassPath) {
        if (loader instanceof URLClassLoader urls && loader != ClassLoader.getSystemClassLoader()) {
            List<String> paths = new ArrayList<>();
            for (URL url : urls.getURLs()) {
                paths.add(toPath(url));
            }
            if (!paths.isEmpty()) {
                return String.join(File.pathSeparator, paths);
            }
        }
        return javaClassPath;
    }

    private static String toPath(URL url) {
        try {
            return Path.of(url.toURI()).toString();
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot use class path entry " + url + " for a worker", e);
        }
    }
}
