package dev.loanruntime;

import dev.loanruntime.settings.ThreadModel;

class PlatformRouteContractIT extends RouteContract {
    @Override
    ThreadModel threadModel() {
        return ThreadModel.PLATFORM;
    }
}
