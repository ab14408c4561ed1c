package dev.loanruntime.stages;

import java.util.Arrays;
import java.util.List;

/**
 * The stages of a request's life, in the order it lives them, each between two of its points ({@link RequestStamps}):
 * what {@code Server-Timing} names, the JFR event's fields ({@link StageEvents}), {@code probe --stages}' columns and
 * the stage chart's bars are all made from this list. Adding a stage: a constant here, and the points that bound it.
 */
public enum Stage {
    /** A first request: accepted until its connection's thread first ran (the wait for a carrier or a thread). */
    CARRIER("carrier", "Carrier", 0xD62728),
    /** A first request: the thread ran until the request line had arrived. */
    LINE("line", "Line", 0xBCBD22),
    /** A later request on a kept-alive connection: the previous response was sent until its request line arrived. */
    IDLE("idle", "Idle", 0xB0B0B0),
    /** The request line until the end of the headers. */
    HEADERS("headers", "Headers", 0x17BECF),
    /** The headers until the server admitted the request to its routes. */
    ADMIT("admit", "Admit", 0x9467BD),
    /** The platform model: admitted until a handler thread took the request. */
    QUEUE("queue", "Queue", 0xFF7F0E),
    /** The handler's own running time, without the time a pooled derivation kept it waiting. */
    HANDLER("handler", "Handler", 0x2E6FB7),
    /** A pooled derivation: handed to the crypto pool until a pool thread started it. */
    CRYPTO_QUEUE("crypto-queue", "Crypto Queue", 0x8C564B),
    /** A pooled derivation: its run on a pool thread. */
    DERIVE("derive", "Derive", 0x2CA02C),
    /** A pooled derivation: its end until the handler ran again (for a virtual thread, a carrier again). */
    RESUME("resume", "Resume", 0xE377C2),
    /** The response ready until it was sent. */
    WRITE("write", "Write", 0x7F7F7F),
    /** The request's first point until its response was sent: the sum of the others. */
    TOTAL("total", "Total", 0x000000);

    /** Every stage but {@link #TOTAL}: the parts a request's total is made of, in order. */
    public static final List<Stage> PARTS = Arrays.stream(values()).filter(s -> s != TOTAL).toList();

    private final String label;
    private final String title;
    private final int rgb;

    Stage(String label, String title, int rgb) {
        this.label = label;
        this.title = title;
        this.rgb = rgb;
    }

    /** Its name in {@code Server-Timing}, in tables and in JSON: {@code crypto-queue}. */
    public String label() {
        return label;
    }

    /** Its JFR field's label: {@code Crypto Queue}. */
    public String title() {
        return title;
    }

    /** Its JFR field's name: {@code cryptoQueue}. */
    public String field() {
        String[] words = label.split("-");
        StringBuilder name = new StringBuilder(words[0]);
        for (int i = 1; i < words.length; i++) {
            name.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
        }
        return name.toString();
    }

    /** Its colour in the stage charts, as 0xRRGGBB. */
    public int rgb() {
        return rgb;
    }
}
