package dev.loanruntime.crypto;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.bouncycastle.util.Pack;
import org.junit.jupiter.api.Test;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;


/**
 * The {@code reuse} provider's parts against RFC 7914's intermediate vectors (sections 8 to 11); the largest vector
 * (section 12, 1 GiB) is {@link ScryptLargeVectorIT}'s, in a JVM of its own.
 */
class ScryptMixTest {
    /** Section 9's input, which is also section 10's (r = 1: one 128-byte block). */
    private static final String BLOCK = "f7ce0b653d2d72a4108cf5abe912ffdd777616dbbb27a70e8204f3ae2d0f6fad"
            + "89f68f4811d1e87bcc3bd7400a9ffd29094f0184639574f39ae5a1315217bcd7"
            + "894991447213bb226c25b54da86370fbcd984380374666bb8ffcb5bf40c254b0"
            + "67d27c51ce4ad5fed829c90b505a571b7f4d1cad6a523cda770e67bceaaf7e89";

    @Test
    void salsa8MatchesSection8() {
        int[] x = words("7e879a214f3ec9867ca940e641718f26baee555b8c61c1b50df846116dcd3b1d"
                + "ee24f319df9b3d8514121e4b5ac5aa3276021d2909c74829edebc68db8b8c25e");
        ScryptMix.salsa8(x);
        assertThat(hex(x), is("a41f859c6608cc993b81cacb020cef05044b2181a2fd337dfd7b1c6396682f29"
                + "b4393168e3c9e6bcfe6bc5b7a06d96bae424cc102c91745c24ad673dc7618f81"));
    }

    @Test
    void blockMixMatchesSection9() {
        int[] out = new int[32];
        ScryptMix.blockMix(words(BLOCK), 0, null, 0, out, 0, 1, new int[16]);
        assertThat(hex(out), is("a41f859c6608cc993b81cacb020cef05044b2181a2fd337dfd7b1c6396682f29"
                + "b4393168e3c9e6bcfe6bc5b7a06d96bae424cc102c91745c24ad673dc7618f81"
                + "20edc975323881a80540f64c162dcd3c21077cfe5f8d5fe2b1a4168f953678b7"
                + "7d3b3d803b60e4ab920996e59b4d53b65d2a225877d5edf5842cb9f14eefe425"));
    }

    /** BlockMix of A xor B, read inside the mix, is BlockMix of the xor computed first (ROMix's second loop). */
    @Test
    void blockMixOfAnXorReadInPlaceEqualsBlockMixOfTheXor() {
        int[] a = words(BLOCK);
        int[] b = new int[32];
        for (int i = 0; i < b.length; i++) {
            b[i] = 0x9e3779b9 * (i + 1);
        }
        int[] xored = new int[32];
        for (int i = 0; i < xored.length; i++) {
            xored[i] = a[i] ^ b[i];
        }
        int[] expected = new int[32];
        ScryptMix.blockMix(xored, 0, null, 0, expected, 0, 1, new int[16]);
        int[] folded = new int[32];
        ScryptMix.blockMix(a, 0, b, 0, folded, 0, 1, new int[16]);
        assertThat(folded, is(expected));
    }

    @Test
    void roMixMatchesSection10() {
        int n = 16;
        int[] v = new int[32 * n];
        System.arraycopy(words(BLOCK), 0, v, 0, 32);
        int[] x = new int[32];
        ScryptMix.roMix(v, x, new int[32], n, 1, new int[16]);
        assertThat(hex(x), is("79ccc193629debca047f0b70604bf6b62ce3dd4a9626e355fafc6198e6ea2b46"
                + "d58413673b99b029d665c357601fb426a0b2f4bba200ee9f0a43d19b571a9c71"
                + "ef1142e65d5a266fddca832ce59faa7cac0b9cf1be2bffca300d01ee387619c4"
                + "ae12fd4438f203a0e4e1c47ec314861f4e9087cb33396a6873e8f9d2539a4b8e"));
    }

    @Test
    void pbkdf2MatchesSection11() {
        assertThat(HexFormat.of().formatHex(ReuseScrypt.pbkdf2(bytes("passwd"), bytes("salt"), 1, 64)), is("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"));
        assertThat(HexFormat.of().formatHex(ReuseScrypt.pbkdf2(bytes("Password"), bytes("NaCl"), 80_000, 64)), is("4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"));
    }

    private static int[] words(String hex) {
        byte[] bytes = HexFormat.of().parseHex(hex);
        return Pack.littleEndianToInt(bytes, 0, bytes.length / 4);
    }

    private static String hex(int[] words) {
        return HexFormat.of().formatHex(Pack.intToLittleEndian(words));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
