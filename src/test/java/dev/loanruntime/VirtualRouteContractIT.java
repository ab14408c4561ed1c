package dev.loanruntime;

import dev.loanruntime.runtime.ThreadModel;

class VirtualRouteContractIT extends RouteContract {
    @Override
    ThreadModel threadModel() {
        return ThreadModel.VIRTUAL;
    }
}
