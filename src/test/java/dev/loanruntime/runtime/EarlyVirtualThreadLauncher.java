package dev.loanruntime.runtime;

import dev.loanruntime.Main;

/** Starts a virtual thread before handing over to {@link Main}, as an application embedding it might. */
public final class EarlyVirtualThreadLauncher {
    private EarlyVirtualThreadLauncher() {
    }

    public static void main(String[] args) throws InterruptedException {
        Thread.ofVirtual().start(() -> { }).join();
        Main.main(args);
    }
}
