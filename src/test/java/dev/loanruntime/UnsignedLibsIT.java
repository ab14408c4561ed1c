package dev.loanruntime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

/**
 * The jars the packaged server runs with (target/libs) carry no signature: a JVM checks a signed jar's certificates
 * before the first of its classes loads, at every start (build/UnsignedJar.java and the pom's
 * unsigned-bouncy-castle execution, which a newly signed dependency joins).
 */
class UnsignedLibsIT {
    private static final Path LIBS = Path.of(System.getProperty("loan.jar")).resolveSibling("libs");

    @Test
    void noJarOfTheServerIsSigned() throws IOException {
        List<String> signed = new ArrayList<>();
        List<Path> jars;
        try (Stream<Path> files = Files.list(LIBS)) {
            jars = files.filter(f -> f.toString().endsWith(".jar")).toList();
        }
        for (Path jar : jars) {
            try (JarFile file = new JarFile(jar.toFile(), false)) {
                file.stream().map(e -> e.getName().toUpperCase(java.util.Locale.ROOT))
                        .filter(n -> n.matches("META-INF/[^/]+\\.(SF|RSA|DSA|EC)"))
                        .forEach(n -> signed.add(jar.getFileName() + "!" + n));
            }
        }
        assertThat(jars.size(), greaterThan(10));
        assertThat("signature files in target/libs", signed, is(empty()));
    }

    @Test
    void bouncyCastleKeepsItsMainAttributesAndItsClasses() throws IOException {
        List<Path> bc;
        try (Stream<Path> files = Files.list(LIBS)) {
            bc = files.filter(f -> f.getFileName().toString().startsWith("bcprov-")).toList();
        }
        assertThat(bc, hasSize(1));
        try (JarFile file = new JarFile(bc.get(0).toFile())) {
            Attributes main = file.getManifest().getMainAttributes();
            assertThat(main.getValue("Multi-Release"), is("true"));
            assertThat(file.getManifest().getEntries().keySet(), is(empty()));
            assertThat(file.getEntry("org/bouncycastle/crypto/generators/SCrypt.class") != null, is(true));
        }
    }
}
