package dev.loanruntime.crypto;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ScryptVectorsTest {
    private final PasswordHasher hasher = new BouncyCastleScrypt();

    /** RFC 7914, section 12 (the vectors of small cost; the N=1048576 one needs 1 GiB). */
    @ParameterizedTest(name = "P=''{0}'' S=''{1}'' N={2} r={3} p={4}")
    @CsvSource(delimiter = '|', value = {
            "''|''|16|1|1|77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906",
            "password|NaCl|1024|8|16|fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640",
            "pleaseletmein|SodiumChloride|16384|8|1|7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"})
    void derivesTheRfc7914Vectors(String password, String salt, int n, int r, int p, String expectedHex) {
        byte[] key = hasher.derive(bytes(password), bytes(salt), new ScryptCost(n, r, p, 64));
        assertEquals(expectedHex, HexFormat.of().formatHex(key));
    }

    @Test
    void lessonCostGivesTheDigestOpenSslGives() {
        byte[] key = hasher.derive(bytes("password"), bytes("salt"), ScryptCost.LESSON);
        assertEquals("e47706c394e329b2", HexFormat.of().formatHex(key).substring(0, 16));
    }

    @Test
    void lessonCostHolds64MiB() {
        assertEquals(64L * 1024 * 1024, ScryptCost.LESSON.memoryBytes());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
