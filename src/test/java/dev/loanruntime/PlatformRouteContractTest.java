package dev.loanruntime;

import dev.loanruntime.runtime.ThreadModel;

class PlatformRouteContractTest extends RouteContract {
    @Override
    ThreadModel threadModel() {
        return ThreadModel.PLATFORM;
    }
}
