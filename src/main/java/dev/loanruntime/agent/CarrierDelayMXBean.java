package dev.loanruntime.agent;

/**
 * One probe of the agent over JMX ({@code dev.loanruntime:type=CarrierDelay,thread=virtual|platform}): its delay over
 * the last 10 s and right now, in milliseconds, NaN while it has no sample; and the pin watch's counts, the same in
 * both (-1 and NaN unless the agent runs with {@code pins=on}).
 */
public interface CarrierDelayMXBean {
    double getP50Ms();

    double getP99Ms();

    double getMaxMs();

    long getSamples();

    double getLateNowMs();

    long getPinnedEvents();

    double getPinnedLongestMs();
}
