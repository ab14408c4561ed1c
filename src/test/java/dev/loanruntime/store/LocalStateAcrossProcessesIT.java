package dev.loanruntime.store;

class LocalStateAcrossProcessesIT extends StateAcrossProcessesContract {
    @Override
    String store() {
        return "local";
    }

    @Override
    boolean shared() {
        return false;
    }
}
