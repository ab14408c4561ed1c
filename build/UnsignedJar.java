import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * Rewrites a jar in place without its signature: no META-INF/*.SF, *.RSA, *.DSA, *.EC or SIG-* files, and a manifest
 * with its main attributes only (no per-entry digests). Run by the build on target/libs' copy of Bouncy Castle:
 * a JVM that opens a signed jar checks its certificates before the first of its classes loads, which costs a
 * worker's start a visible part of its time; this project uses Bouncy Castle's own API, not as a JCA provider, so
 * nothing needs the signature. Usage: {@code java build/UnsignedJar.java JAR...}; a jar without a signature is left as
 * it is.
 */
public final class UnsignedJar {
    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: java build/UnsignedJar.java JAR...");
            System.exit(2);
        }
        for (String arg : args) {
            Path jar = Path.of(arg);
            if (!Files.isRegularFile(jar)) {
                System.err.println("UnsignedJar: no such jar: " + jar);
                System.exit(2);
            }
            if (rewrite(jar)) {
                System.out.println("UnsignedJar: " + jar + " now has no signature");
            }
        }
    }

    /** Rewrites {@code jar} without its signature; false when it had none (nothing written). */
    static boolean rewrite(Path jar) throws IOException {
        Path out = jar.resolveSibling(jar.getFileName() + ".unsigned");
        try (JarFile in = new JarFile(jar.toFile(), false)) {
            Manifest manifest = in.getManifest();
            boolean signed = in.stream().anyMatch(e -> signature(e.getName()));
            if (!signed && (manifest == null || manifest.getEntries().isEmpty())) {
                return false;
            }
            Manifest mainOnly = new Manifest();
            if (manifest != null) {
                mainOnly.getMainAttributes().putAll(manifest.getMainAttributes());
            } else {
                mainOnly.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
            }
            try (OutputStream file = Files.newOutputStream(out); JarOutputStream zip = new JarOutputStream(file, mainOnly)) {
                for (JarEntry entry : in.stream().toList()) {
                    String name = entry.getName();
                    if (name.equalsIgnoreCase(JarFile.MANIFEST_NAME) || signature(name)) {
                        continue;
                    }
                    JarEntry copy = new JarEntry(name);
                    copy.setTime(entry.getTime());
                    zip.putNextEntry(copy);
                    try (InputStream data = in.getInputStream(entry)) {
                        data.transferTo(zip);
                    }
                    zip.closeEntry();
                }
            }
        }
        Files.move(out, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }

    /** A signature file: META-INF/NAME.SF, .RSA, .DSA, .EC or META-INF/SIG-NAME, not in a subfolder of META-INF. */
    private static boolean signature(String name) {
        String upper = name.toUpperCase(java.util.Locale.ROOT);
        if (!upper.startsWith("META-INF/") || upper.indexOf('/', "META-INF/".length()) >= 0) {
            return false;
        }
        String file = upper.substring("META-INF/".length());
        return file.endsWith(".SF") || file.endsWith(".RSA") || file.endsWith(".DSA") || file.endsWith(".EC")
                || file.startsWith("SIG-");
    }
}
