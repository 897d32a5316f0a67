// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// Gas baseline: a plain OpenZeppelin 5 ERC721 as OpenZeppelin Wizard writes it (a counter
/// that starts unset, ids from 0), minting a batch with a loop of _mint. This is the contract
/// ANCHORS.md measured; its first mint pays the counter's first write.
contract BaselineERC721 is ERC721 {
    uint256 private _nextTokenId;

    constructor() ERC721("Baseline", "BASE") {}

    function mintTo(address to, uint256 quantity) external {
        for (uint256 i = 0; i < quantity; ++i) {
            _mint(to, _nextTokenId++);
        }
    }
}
