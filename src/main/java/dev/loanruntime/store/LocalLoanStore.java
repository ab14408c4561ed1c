package dev.loanruntime.store;

import java.util.concurrent.atomic.AtomicLong;

/** The counter in this process's memory: every process of a cluster has its own, and they diverge. */
public final class LocalLoanStore implements LoanStore {
    private final AtomicLong loans = new AtomicLong();

    @Override
    public long incrementLoans() {
        return loans.incrementAndGet();
    }

    @Override
    public long loans() {
        return loans.get();
    }

    @Override
    public String describe() {
        return "local";
    }
}
