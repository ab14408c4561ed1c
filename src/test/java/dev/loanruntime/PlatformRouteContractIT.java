package dev.loanruntime;

import dev.loanruntime.runtime.ThreadModel;

class PlatformRouteContractIT extends RouteContract {
    @Override
    ThreadModel threadModel() {
        return ThreadModel.PLATFORM;
    }
}
