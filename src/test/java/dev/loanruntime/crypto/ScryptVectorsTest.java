package dev.loanruntime.crypto;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every provider derives the same bytes: the RFC's and OpenSSL's. */
@ResourceLock(value = Resources.SYSTEM_ERR, mode = ResourceAccessMode.READ)   // a native library's warning
class ScryptVectorsTest {

    /** RFC 7914, section 12 (the vectors of small cost; the N=1048576 one needs 1 GiB), for each provider. */
    static Stream<Arguments> vectors() {
        String[][] rfc = {
                {"", "", "16", "1", "1", "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"},
                {"password", "NaCl", "1024", "8", "16", "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"},
                {"pleaseletmein", "SodiumChloride", "16384", "8", "1", "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"}};
        return Stream.of(ScryptProvider.values()).flatMap(provider -> Stream.of(rfc).map(v -> Arguments.of(provider,
                v[0], v[1], Integer.parseInt(v[2]), Integer.parseInt(v[3]), Integer.parseInt(v[4]), v[5])));
    }

    @ParameterizedTest(name = "{0}: P=''{1}'' S=''{2}'' N={3} r={4} p={5}")
    @MethodSource("vectors")
    void derivesTheRfc7914Vectors(ScryptProvider provider, String password, String salt, int n, int r, int p,
                                  String expectedHex) {
        byte[] key = hasher(provider).derive(bytes(password), bytes(salt), new ScryptCost(n, r, p, 64));
        assertThat(HexFormat.of().formatHex(key), is(expectedHex));
    }

    /** The whole key, as Node (OpenSSL) prints scrypt("password", "salt", 32, {N: 65536, r: 8, p: 8}). */
    @ParameterizedTest
    @EnumSource(ScryptProvider.class)
    void lessonCostGivesTheDigestOpenSslGives(ScryptProvider provider) {
        byte[] key = hasher(provider).derive(bytes("password"), bytes("salt"), ScryptCost.LESSON);
        assertThat(HexFormat.of().formatHex(key), is("e47706c394e329b2e0e5f5548779113c470cae9401b6877863d0ee37a33a828c"));
    }

    @Test
    void conscryptRefusesAPasswordThatIsNotUtf8RatherThanDeriveAnotherKey() {
        byte[] latin1 = {(byte) 0xe9, 't', 'e'};
        var e = assertThrows(IllegalArgumentException.class,
                () -> hasher(ScryptProvider.CONSCRYPT).derive(latin1, bytes("salt"), new ScryptCost(16, 1, 1, 32)));
        assertThat(e.getMessage(), e.getMessage().contains("UTF-8"));
    }

    @Test
    void lessonCostHolds64MiB() {
        assertThat(ScryptCost.LESSON.memoryBytes(), is(64L * 1024 * 1024));
    }

    /** The provider's own hasher: a test of Conscrypt must not pass by falling back to BouncyCastle. */
    private static PasswordHasher hasher(ScryptProvider provider) {
        ScryptProvider.Choice choice = provider.open();
        assertThat(choice.fallback().orElse(""), choice.hasher().name(), is(provider.label()));
        return choice.hasher();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
