package dev.loanruntime;

import dev.loanruntime.settings.ThreadModel;

class VirtualRouteContractIT extends RouteContract {
    @Override
    ThreadModel threadModel() {
        return ThreadModel.VIRTUAL;
    }
}
