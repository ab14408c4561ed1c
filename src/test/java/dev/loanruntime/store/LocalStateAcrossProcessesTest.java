package dev.loanruntime.store;

class LocalStateAcrossProcessesTest extends StateAcrossProcessesContract {
    @Override
    String store() {
        return "local";
    }

    @Override
    boolean shared() {
        return false;
    }
}
