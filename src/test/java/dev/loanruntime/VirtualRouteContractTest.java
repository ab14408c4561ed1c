package dev.loanruntime;

import dev.loanruntime.runtime.ThreadModel;

class VirtualRouteContractTest extends RouteContract {
    @Override
    ThreadModel threadModel() {
        return ThreadModel.VIRTUAL;
    }
}
